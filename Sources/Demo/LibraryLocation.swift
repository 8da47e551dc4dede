import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// The library the command reads, opened from the bytes the user typed.
///
/// A path is bytes on Linux; `CommandLine.arguments` and Foundation's working directory
/// are `String`s, which turn bytes that are not UTF-8 into U+FFFD, so a library below a
/// folder named `$'\xff'` could not be opened through them. The argument's own bytes are
/// opened here with `open(2)` (a relative path against the working directory, inside the
/// kernel), and the library reads the folder through `/proc/self/fd/N`, which names that
/// open folder whatever its path is.
final class LibraryLocation {
  /// The library to read.
  let library: AssetsLibrary
  /// The path for messages: as before for UTF-8 paths (absolute), else `%XX`-escaped.
  let displayPath: String
  private let descriptor: Int32

  /// The open library folder, or -1 when the library was opened by its path (no `/proc`).
  var rootDescriptor: Int32 { descriptor }

  /// Opens the library folder at `bytes`.
  ///
  /// - Parameters:
  ///   - bytes: The path as typed (no NUL); relative to the working directory unless it
  ///     starts with `/`.
  ///   - options: What the library's walk includes.
  /// - Throws: The same ``LibraryError`` the library throws for its root.
  init(bytes: [UInt8], options: LibraryOptions = LibraryOptions()) throws(LibraryError) {
    displayPath = LibraryLocation.displayPath(of: bytes)
    let display = displayPath
    var opened: Int32
    repeat {
      opened = (bytes + [0]).withUnsafeBufferPointer { path in
        path.withMemoryRebound(to: CChar.self) { path in
          guard let base = path.baseAddress else { return -1 }
          return open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
      }
    } while opened < 0 && errno == EINTR
    guard opened >= 0 else { throw LibraryLocation.error(errno: errno, path: display) }
    let procPath = "/proc/self/fd/\(opened)"
    if access(procPath, F_OK) == 0 {
      library = AssetsLibrary(root: URL(fileURLWithPath: procPath), options: options)
      descriptor = opened
    } else {
      // No /proc: fall back to the path as text (UTF-8 paths still open).
      _ = close(opened)
      library = AssetsLibrary(root: URL(fileURLWithPath: display), options: options)
      descriptor = -1
    }
  }

  /// How messages name the library at `bytes`: absolute, as `URL(fileURLWithPath:)` has
  /// always made it when the path and the working directory are UTF-8, else from the
  /// bytes with ``LibraryPath/escaped`` (`%FF`).
  static func displayPath(of bytes: [UInt8]) -> String {
    let isAbsolute = bytes.first == UInt8(ascii: "/")
    let directory = isAbsolute ? [] : workingDirectory()
    if let text = String(validating: bytes, as: UTF8.self),
      isAbsolute || String(validating: directory, as: UTF8.self) != nil
    {
      return URL(fileURLWithPath: text).path
    }
    let absolute = isAbsolute ? bytes : directory + [UInt8(ascii: "/")] + bytes
    return LibraryPath(bytes: absolute).escaped
  }

  /// The working directory's bytes (`getcwd`), or none when it cannot be had.
  private static func workingDirectory() -> [UInt8] {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return [] }
    return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  }

  deinit {
    if descriptor >= 0 { _ = close(descriptor) }
  }

  /// The bytes of the library argument: the raw `argv` entry whose text is `text` (the
  /// last one, as the last option wins), else `text`'s UTF-8.
  ///
  /// - Parameters:
  ///   - text: The library as the option parser saw it.
  ///   - rawArguments: The command line's arguments as bytes, without the program name.
  static func bytes(of text: String, in rawArguments: [[UInt8]]) -> [UInt8] {
    let prefix = Array("--library=".utf8)
    for raw in rawArguments.reversed() {
      if String(decoding: raw, as: UTF8.self) == text { return raw }
      if raw.starts(with: prefix),
        String(decoding: raw.dropFirst(prefix.count), as: UTF8.self) == text
      {
        return Array(raw.dropFirst(prefix.count))
      }
    }
    return Array(text.utf8)
  }

  /// The command line's arguments as bytes, without the program name.
  static func rawArguments() -> [[UInt8]] {
    (1..<Int(CommandLine.argc)).compactMap { index in
      guard let argument = CommandLine.unsafeArgv[index] else { return nil }
      return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
    }
  }

  /// The error ``AssetsLibrary`` throws when opening its root fails with `code`.
  private static func error(errno code: Int32, path: String) -> LibraryError {
    switch code {
    case ENOENT: .rootNotFound(path: path)
    case ENOTDIR: .rootNotADirectory(path: path)
    case EACCES, EPERM: .permissionDenied(path: path)
    default: .unreadableRoot(path: path, call: "open", errno: code)
    }
  }
}
