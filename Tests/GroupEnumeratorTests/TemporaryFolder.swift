import Foundation

@testable import GroupEnumerator

#if canImport(Glibc)
  import Glibc
#endif

/// A folder under the system's temporary directory, made for one test and removed
/// (permissions restored first) when the value goes away or on ``remove()``. Names are
/// bytes, so tests can make names that are not valid UTF-8. The one temporary-folder
/// helper of the tests: libraries built from sample files use ``add(_:as:)``.
final class TemporaryFolder {
  /// The folder's absolute path.
  let path: String

  /// A failed set-up call, for `#require`-style failures.
  struct SetupError: Error, CustomStringConvertible {
    let description: String
  }

  init() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "GroupEnumeratorTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    path = url.path
  }

  deinit {
    TemporaryFolder.remove(Array(path.utf8))
  }

  /// The folder as a URL, for ``AssetsLibrary/init(root:options:)``.
  var root: URL { URL(fileURLWithPath: path) }

  /// Copies the sample file at `fixture` (relative to `Fixtures/Library`, see ``Sample``)
  /// to `relative`, making missing folders.
  func add(_ fixture: String, as relative: String) throws {
    let destination = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Sample.library.appendingPathComponent(fixture), to: destination)
  }

  /// Writes `content` to `relative`, making missing folders.
  func write(_ content: [UInt8], as relative: String) throws {
    try makeFolder(String(relative.split(separator: "/").dropLast().joined(separator: "/")))
    try write(relative, content)
  }

  /// Removes the folder now rather than when the value goes away.
  func remove() {
    TemporaryFolder.remove(Array(path.utf8))
  }

  /// The absolute path of `relative`, as bytes.
  func absolute(_ relative: [UInt8]) -> [UInt8] {
    relative.isEmpty ? Array(path.utf8) : Array(path.utf8) + [UInt8(ascii: "/")] + relative
  }

  /// The absolute path of `relative`, as text (for valid UTF-8 names).
  func absolute(_ relative: String) -> String { path + "/" + relative }

  /// Makes a folder and any missing parents.
  func makeFolder(_ relative: String) throws {
    var partial: [UInt8] = []
    for component in relative.utf8.split(separator: UInt8(ascii: "/")) {
      partial += (partial.isEmpty ? [] : [UInt8(ascii: "/")]) + component
      if mkdir(cString(absolute(partial)), 0o755) != 0, errno != EEXIST {
        throw SetupError(description: "mkdir \(relative): \(Errno.current)")
      }
    }
  }

  /// Writes a file (its folder must exist).
  func write(_ relative: String, _ content: [UInt8]) throws {
    try write(bytes: Array(relative.utf8), content)
  }

  /// Writes a file whose path is given as bytes.
  func write(bytes relative: [UInt8], _ content: [UInt8]) throws {
    let descriptor = open(cString(absolute(relative)), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else {
      throw SetupError(description: "create \(relative): \(Errno.current)")
    }
    defer { close(descriptor) }
    let written = content.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    guard written == content.count else {
      throw SetupError(description: "write \(relative): \(Errno.current)")
    }
  }

  /// Makes a symbolic link at `relative` whose target text is `target`.
  func symlink(_ relative: String, to target: String) throws {
    guard Glibc.symlink(target, absolute(relative)) == 0 else {
      throw SetupError(description: "symlink \(relative): \(Errno.current)")
    }
  }

  /// Makes a FIFO.
  func fifo(_ relative: String) throws {
    guard mkfifo(absolute(relative), 0o644) == 0 else {
      throw SetupError(description: "mkfifo \(relative): \(Errno.current)")
    }
  }

  /// Changes a file's or folder's mode.
  func setMode(_ relative: String, _ mode: mode_t) throws {
    guard chmod(relative.isEmpty ? path : absolute(relative), mode) == 0 else {
      throw SetupError(description: "chmod \(relative): \(Errno.current)")
    }
  }

  /// Removes a file.
  func remove(_ relative: String) throws {
    guard unlink(absolute(relative)) == 0 else {
      throw SetupError(description: "unlink \(relative): \(Errno.current)")
    }
  }

  private func cString(_ bytes: [UInt8]) -> [CChar] {
    bytes.map { CChar(bitPattern: $0) } + [0]
  }

  /// Removes `path` and everything below it, making folders writable and searchable
  /// first; never follows links.
  private static func remove(_ path: [UInt8]) {
    guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return }
    let parent = Array(path[..<slash]).map { CChar(bitPattern: $0) } + [0]
    let folder = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { return }
    remove(Array(path[(slash + 1)...]), in: folder)
    close(folder)
  }

  /// Removes the entry `name` of the open folder `folder`, and everything in it, relative
  /// to open folders all the way down: a tree deeper than `PATH_MAX` (as some tests make)
  /// goes too.
  private static func remove(_ name: [UInt8], in folder: Int32) {
    let cName = name.map { CChar(bitPattern: $0) } + [0]
    var status = stat()
    guard fstatat(folder, cName, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      _ = unlinkat(folder, cName, 0)
      return
    }
    _ = fchmodat(folder, cName, 0o700, 0)
    let child = openat(folder, cName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if child >= 0, let stream = fdopendir(child) {
      var names: [[UInt8]] = []
      while let entry = readdir(stream) {
        let entryName = DirectoryStream.name(of: entry)
        if entryName != [0x2E], entryName != [0x2E, 0x2E] { names.append(entryName) }
      }
      for entryName in names { remove(entryName, in: dirfd(stream)) }
      closedir(stream)
    } else if child >= 0 {
      close(child)
    }
    _ = unlinkat(folder, cName, AT_REMOVEDIR)
  }
}

/// Test content: real leading bytes of each format, padded.
enum SampleBytes {
  static let jpeg = hexBytes("ffd8ffe0 00104a46 49460001 01000001 00010000 ffd9")
  static let png = hexBytes("89504e47 0d0a1a0a 0000000d 49484452 00000001 00000001 0802000000")
  static let quickTime = hexBytes(
    "00000014 66747970 71742020 00000000 71742020 00000008 77696465 00000008 6d646174")
  static let mp4 = hexBytes(
    "0000001c 66747970 6d703432 00000000 6d703432 69736f6d 61766331 00000008 66726565")

  /// Bytes that are no known format (deterministic, not starting with any magic).
  static func noise(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    return [0x5A, 0x5A]
      + (0..<max(0, count - 2)).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
      }
  }
}
