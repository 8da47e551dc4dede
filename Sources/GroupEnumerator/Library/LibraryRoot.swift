/// The library's root folder, opened once and closed when the last reference goes.
///
/// Every later open is relative to ``descriptor`` (see ``LibraryFile``), so renaming or
/// replacing the root's path while the library is read changes nothing. The root itself
/// may be a symbolic link to a folder: naming it is the user's explicit choice, so it is
/// followed, once, here. Whoever reads beneath the root holds this object, not its
/// descriptor: the descriptor stays open exactly as long as someone may use it.
final class LibraryRoot: Sendable {
  /// The root path as given.
  let path: String
  /// The open root folder (read-only, `O_DIRECTORY | O_CLOEXEC`).
  let descriptor: FileDescriptor

  /// Opens the root folder.
  ///
  /// - Parameter path: The root folder's path.
  /// - Throws: ``LibraryError/rootNotFound(path:)`` when nothing is there,
  ///   ``LibraryError/rootNotADirectory(path:)`` for a file,
  ///   ``LibraryError/permissionDenied(path:)`` when this user may not read it, and
  ///   ``LibraryError/unreadableRoot(path:call:errno:)`` otherwise.
  init(path: String) throws(LibraryError) {
    let opened: FileDescriptor
    do {
      opened = try FileDescriptor.open(path, options: [.directory, .closeOnExec])
    } catch {
      throw LibraryRoot.error(error, path: path)
    }
    let status: FileStatus
    do {
      status = try opened.status()
    } catch {
      opened.close()
      throw LibraryRoot.error(error, path: path)
    }
    guard status.kind == .directory else {
      opened.close()
      throw LibraryError.rootNotADirectory(path: path)
    }
    self.path = path
    self.descriptor = opened
  }

  deinit {
    descriptor.close()
  }

  /// The library error a failed call on the root stands for.
  ///
  /// - Parameters:
  ///   - failure: The failed call and its `errno`.
  ///   - path: The root path.
  /// - Returns: The error.
  static func error(_ failure: SystemCallError, path: String) -> LibraryError {
    switch failure.errno {
    case .noSuchFileOrDirectory: .rootNotFound(path: path)
    case .notDirectory: .rootNotADirectory(path: path)
    case .permissionDenied, .notPermitted: .permissionDenied(path: path)
    default: .unreadableRoot(path: path, call: failure.function, errno: failure.errno.rawValue)
    }
  }
}
