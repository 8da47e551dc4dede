#if canImport(Glibc)
  internal import Glibc
#endif

/// The library's root folder, opened once and closed when the last reference goes.
///
/// Every later open is relative to ``descriptor`` (see ``LibraryFile``), so renaming or
/// replacing the root's path while the library is read changes nothing. The root itself
/// may be a symbolic link to a folder: naming it is the user's explicit choice, so it is
/// followed, once, here.
final class LibraryRoot: Sendable {
  /// The root path as given.
  let path: String
  /// The open descriptor of the root folder (`O_RDONLY | O_DIRECTORY | O_CLOEXEC`).
  let descriptor: Int32

  /// Opens the root folder.
  ///
  /// - Parameter path: The root folder's path.
  /// - Throws: ``LibraryError/rootNotFound(path:)`` when nothing is there,
  ///   ``LibraryError/rootNotADirectory(path:)`` for a file,
  ///   ``LibraryError/permissionDenied(path:)`` when this user may not read it, and
  ///   ``LibraryError/unreadableRoot(path:call:errno:)`` otherwise.
  init(path: String) throws(LibraryError) {
    var opened: Int32
    repeat {
      opened = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    } while opened < 0 && errno == EINTR
    guard opened >= 0 else { throw LibraryRoot.error(errno: errno, call: "open", path: path) }
    var status = stat()
    guard fstat(opened, &status) == 0 else {
      let code = errno
      _ = close(opened)
      throw LibraryRoot.error(errno: code, call: "fstat", path: path)
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      _ = close(opened)
      throw LibraryError.rootNotADirectory(path: path)
    }
    self.path = path
    self.descriptor = opened
  }

  deinit {
    _ = close(descriptor)
  }

  /// The library error an `errno` value from opening or listing the root stands for.
  ///
  /// - Parameters:
  ///   - code: The `errno` value.
  ///   - call: The C function that failed, for the message.
  ///   - path: The root path.
  /// - Returns: The error.
  static func error(errno code: Int32, call: String, path: String) -> LibraryError {
    switch code {
    case ENOENT: .rootNotFound(path: path)
    case ENOTDIR: .rootNotADirectory(path: path)
    case EACCES, EPERM: .permissionDenied(path: path)
    default: .unreadableRoot(path: path, call: call, errno: code)
    }
  }
}
