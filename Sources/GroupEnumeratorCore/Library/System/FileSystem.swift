import FoundationEssentials

#if canImport(Glibc)
  internal import Glibc
#endif

/// The system calls made on paths rather than on open descriptors: for the index's file and
/// its folders, which are named by path (the library itself is only read through
/// descriptors opened beneath its root, ``FileDescriptor``).
///
/// Creating a folder, writing a new file in place of another, renaming and removing a file
/// are the only calls here that change anything; the index, its snapshot and the picture
/// cache use them for their own folders and files, which are never inside the library.
/// Each failure is a ``SystemCallError`` naming the C function and its `errno`.
enum FileSystem {
  /// The status of the file at `path`; with `followsLinks` false, a symbolic link is
  /// described, not followed.
  ///
  /// The corresponding C functions are `stat` and `lstat`.
  static func status(atPath path: String, followsLinks: Bool = true) throws(SystemCallError)
    -> FileStatus
  {
    FileStatus(try statusRecord(atPath: path, followsLinks: followsLinks))
  }

  /// The `struct stat` of the file at `path` as the C library fills it in, for code that
  /// still reads its fields (``FileStatus`` is the Swift form); with `followsLinks` false,
  /// a symbolic link is described, not followed.
  ///
  /// The corresponding C functions are `stat` and `lstat`.
  static func statusRecord(atPath path: String, followsLinks: Bool = true)
    throws(SystemCallError) -> stat
  {
    var status = stat()
    if followsLinks {
      guard stat(path, &status) == 0 else {
        throw SystemCallError(function: "stat", errno: .current)
      }
    } else {
      guard lstat(path, &status) == 0 else {
        throw SystemCallError(function: "lstat", errno: .current)
      }
    }
    return status
  }

  /// Creates the folder `path` with the permission bits `permissions` (less the umask);
  /// the folder above it must exist.
  ///
  /// The corresponding C function is `mkdir`.
  ///
  /// - Throws: `EEXIST` when something exists at `path` already.
  static func makeFolder(atPath path: String, permissions: UInt32) throws(SystemCallError) {
    guard mkdir(path, mode_t(permissions)) == 0 else {
      throw SystemCallError(function: "mkdir", errno: .current)
    }
  }

  /// Creates the folder `path` and every missing folder above it, each with the permission
  /// bits `permissions` (less the umask). A folder that exists already, or that another
  /// thread or process makes meanwhile, is as good as one made here.
  ///
  /// The corresponding C functions are `stat` and `mkdir`.
  ///
  /// - Returns: The first folder that could not be made, with its `errno` (`ENOTDIR` when
  ///   something that is not a folder has its name); `nil` on success.
  static func makeFolders(atPath path: String, permissions: UInt32) -> (path: String, code: Errno)?
  {
    if let existing = try? FileSystem.status(atPath: path) {
      return existing.kind == .directory ? nil : (path, .notDirectory)
    }
    let parent = PathText.parent(of: path)
    if parent != path, !parent.isEmpty,
      let failure = makeFolders(atPath: parent, permissions: permissions)
    {
      return failure
    }
    do throws(SystemCallError) {
      try makeFolder(atPath: path, permissions: permissions)
    } catch {
      if error.errno != .fileExists { return (path, error.errno) }
    }
    return nil
  }

  /// Removes the name `path` (not a folder).
  ///
  /// The corresponding C function is `unlink`.
  static func removeFile(atPath path: String) throws(SystemCallError) {
    guard unlink(path) == 0 else {
      throw SystemCallError(function: "unlink", errno: .current)
    }
  }

  /// Gives the file `path` the name `newPath` in one step, replacing what had that name
  /// (a reader sees the old file or the new one, never a part).
  ///
  /// The corresponding C function is `rename`.
  static func rename(atPath path: String, to newPath: String) throws(SystemCallError) {
    guard Glibc.rename(path, newPath) == 0 else {
      throw SystemCallError(function: "rename", errno: .current)
    }
  }

  /// The absolute path of `path` with every symbolic link, `.` and `..` resolved, as
  /// bytes (a path need not be UTF-8); every part of it must exist.
  ///
  /// The corresponding C function is `realpath`.
  static func canonicalPath(_ path: String) throws(SystemCallError) -> [UInt8] {
    guard let resolved = realpath(path, nil) else {
      throw SystemCallError(function: "realpath", errno: .current)
    }
    defer { free(resolved) }
    return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }

  /// The file at `path`, whole, when it is a regular file of the effective user's, at
  /// most `maximumSize` bytes and not empty, reached without following a symbolic link at
  /// its last component; `nil` otherwise, or when it cannot be read whole. A FIFO at
  /// `path` does not block the call (it is opened non-blocking, then refused).
  ///
  /// The corresponding C functions are `open` (`O_NOFOLLOW | O_NONBLOCK`), `fstat` and
  /// `read`.
  static func ownFile(atPath path: String, maximumSize: Int) -> [UInt8]? {
    guard let (bytes, size) = ownFile(atPath: path, maximumSize: maximumSize, prefix: maximumSize),
      bytes.count == size
    else { return nil }
    return bytes
  }

  /// The first `prefix` bytes (or fewer, the whole) of the file at `path`, and its size,
  /// under the conditions of ``ownFile(atPath:maximumSize:)``.
  static func ownFile(atPath path: String, maximumSize: Int, prefix: Int) -> (
    bytes: [UInt8], size: Int
  )? {
    let descriptor = DescriptorReserve.admit(
      open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC))
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      status.st_uid == geteuid(), status.st_size > 0, status.st_size <= maximumSize
    else { return nil }
    let fileSize = Int(status.st_size)
    let size = min(fileSize, max(prefix, 0))
    var complete = true
    // Not zeroed first: every byte is read over.
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      var done = 0
      while done < size, let base = buffer.baseAddress {
        let result = read(descriptor, base + done, size - done)
        if result > 0 {
          done += result
        } else if result < 0, errno == EINTR {
          continue
        } else {
          break
        }
      }
      complete = done == size
      count = done
    }
    return complete ? (bytes, fileSize) : nil
  }

  /// Puts `bytes` at `path`: written to a new file beside it (mode 0600), which then
  /// replaces it, so that a reader sees the old file or the new one whole. Returns
  /// whether it did; a failure leaves no new file.
  ///
  /// The corresponding C functions are `mkstemp`, `write`, `close` and `rename`.
  @discardableResult
  static func replaceFile(atPath path: String, with bytes: [UInt8]) -> Bool {
    var template = Array((path + ".XXXXXX").utf8CString)
    let descriptor = DescriptorReserve.admit(mkstemp(&template))
    guard descriptor >= 0 else { return false }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    let temporary = String(
      decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var done = 0
    var failed = false
    while done < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.map { write(descriptor, $0 + done, bytes.count - done) } ?? -1
      }
      if count > 0 {
        done += count
      } else if count < 0, errno == EINTR {
        continue
      } else {
        failed = true
        break
      }
    }
    if close(descriptor) != 0 { failed = true }
    guard !failed, Glibc.rename(temporary, path) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }
}
