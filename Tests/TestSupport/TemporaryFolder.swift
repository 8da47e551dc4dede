public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A folder under the system's temporary directory, made for one test and removed
/// (permissions restored first) when the value goes away or on ``remove()``. Names are
/// bytes, so tests can make names that are not valid UTF-8. The one temporary-folder
/// helper of both test targets: libraries built from sample files use ``add(_:as:)``, a
/// whole copy of `Fixtures/Library` ``copyLibrary(as:)``.
public final class TemporaryFolder {
  /// The folder's absolute path.
  public let path: String

  /// A failed set-up call, for `#require`-style failures.
  public struct SetupError: Error, CustomStringConvertible {
    /// What failed, with the C library's words for why.
    public let description: String

    /// An error saying `description`.
    public init(description: String) { self.description = description }
  }

  /// Makes an empty folder named after `label` (the test's name helps when one is left
  /// behind by a killed run).
  public init(_ label: String = "GroupEnumeratorTests") throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    path = url.path
  }

  deinit {
    TemporaryFolder.remove(Array(path.utf8))
  }

  /// The folder as a URL, for ``AssetsLibrary/init(root:options:)``.
  public var root: URL { URL(fileURLWithPath: path) }

  /// Copies the sample file at `fixture` (relative to `Fixtures/Library`, see ``Sample``)
  /// to `relative`, making missing folders.
  public func add(_ fixture: String, as relative: String) throws {
    let destination = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    try SpawnFence.exclusive {
      try FileManager.default.copyItem(
        at: Sample.library.appendingPathComponent(fixture), to: destination)
    }
  }

  /// Copies `Fixtures/Library` (see ``Sample``) to `relative` and returns the copy's URL.
  @discardableResult
  public func copyLibrary(as relative: String = "Library") throws -> URL {
    let destination = root.appendingPathComponent(relative)
    try SpawnFence.exclusive {
      try FileManager.default.copyItem(at: Sample.library, to: destination)
    }
    return destination
  }

  /// Writes `content` to `relative`, making missing folders.
  public func write(_ content: [UInt8], as relative: String) throws {
    try makeFolder(String(relative.split(separator: "/").dropLast().joined(separator: "/")))
    try write(relative, content)
  }

  /// Removes the folder now rather than when the value goes away.
  public func remove() {
    TemporaryFolder.remove(Array(path.utf8))
  }

  /// The absolute path of `relative`, as bytes.
  public func absolute(_ relative: [UInt8]) -> [UInt8] {
    relative.isEmpty ? Array(path.utf8) : Array(path.utf8) + [UInt8(ascii: "/")] + relative
  }

  /// The absolute path of `relative`, as text (for valid UTF-8 names).
  public func absolute(_ relative: String) -> String { path + "/" + relative }

  /// Makes a folder and any missing parents.
  public func makeFolder(_ relative: String) throws {
    var partial: [UInt8] = []
    for component in relative.utf8.split(separator: UInt8(ascii: "/")) {
      partial += (partial.isEmpty ? [] : [UInt8(ascii: "/")]) + component
      if mkdir(cString(absolute(partial)), 0o755) != 0, errno != EEXIST {
        throw SetupError(description: "mkdir \(relative): \(errorText())")
      }
    }
  }

  /// Writes a file (its folder must exist).
  public func write(_ relative: String, _ content: [UInt8]) throws {
    try write(bytes: Array(relative.utf8), content)
  }

  /// Writes a file whose path is given as bytes.
  ///
  /// No child a test starts meanwhile inherits the descriptor (``SpawnFence``).
  public func write(bytes relative: [UInt8], _ content: [UInt8]) throws {
    let path = cString(absolute(relative))
    try SpawnFence.exclusive {
      let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else {
        throw SetupError(description: "create \(relative): \(errorText())")
      }
      defer { close(descriptor) }
      let written = content.withUnsafeBytes {
        Glibc.write(descriptor, $0.baseAddress, $0.count)
      }
      guard written == content.count else {
        throw SetupError(description: "write \(relative): \(errorText())")
      }
    }
  }

  /// Makes a symbolic link at `relative` whose target text is `target`.
  public func symlink(_ relative: String, to target: String) throws {
    guard Glibc.symlink(target, absolute(relative)) == 0 else {
      throw SetupError(description: "symlink \(relative): \(errorText())")
    }
  }

  /// Makes a FIFO.
  public func fifo(_ relative: String) throws {
    guard mkfifo(absolute(relative), 0o644) == 0 else {
      throw SetupError(description: "mkfifo \(relative): \(errorText())")
    }
  }

  /// Changes a file's or folder's mode.
  public func setMode(_ relative: String, _ mode: mode_t) throws {
    guard chmod(relative.isEmpty ? path : absolute(relative), mode) == 0 else {
      throw SetupError(description: "chmod \(relative): \(errorText())")
    }
  }

  /// Removes a file.
  public func remove(_ relative: String) throws {
    guard unlink(absolute(relative)) == 0 else {
      throw SetupError(description: "unlink \(relative): \(errorText())")
    }
  }

  /// `errno` as the C library words it, read right after a failed call.
  private func errorText() -> String {
    let code = errno
    return "errno \(code): \(String(cString: strerror(code)))"
  }

  /// The name of a folder entry, as bytes.
  private static func nameBytes(of entry: UnsafePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let start = UnsafeRawPointer(entry) + offset
    let length = strlen(start.assumingMemoryBound(to: CChar.self))
    return Array(UnsafeRawBufferPointer(start: start, count: length))
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
        let entryName = Self.nameBytes(of: entry)
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
