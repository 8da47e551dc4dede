import Synchronization

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
  /// What every file opened beneath the root through
  /// ``LibraryFile/withOpened(root:path:_:)`` read: a diagnostic for
  /// ``EnumerationStatistics``.
  let readTally = ReadTally()
  /// Whether the files read beneath the root have their ends checked
  /// (``LibraryOptions/verifiesFileEnds``).
  let verifiesFileEnds: Bool

  /// Opens the root folder.
  ///
  /// - Parameters:
  ///   - path: The root folder's path.
  ///   - verifiesFileEnds: Whether the files read beneath it have their ends checked.
  /// - Throws: ``LibraryError/rootNotFound(path:)`` when nothing is there,
  ///   ``LibraryError/rootNotADirectory(path:)`` for a file,
  ///   ``LibraryError/permissionDenied(path:)`` when this user may not read it, and
  ///   ``LibraryError/unreadableRoot(path:call:errno:)`` otherwise.
  init(path: String, verifiesFileEnds: Bool = false) throws(LibraryError) {
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
    self.verifiesFileEnds = verifiesFileEnds
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

/// Counts the `pread` calls and bytes of the files read beneath one root, from any thread,
/// and tells whether the reads come from the disk rather than the page cache.
final class ReadTally: Sendable {
  private let calls = Atomic<Int>(0)
  private let bytes = Atomic<Int>(0)
  private let slowCalls = Atomic<Int>(0)
  private let cold = Atomic<Bool>(false)

  /// A read of at most this many bytes that takes longer than ``slowReadTime`` was not
  /// answered from the page cache (one that the cache answers takes a few microseconds).
  static let slowReadLimit = 64 * 1024
  /// See ``slowReadLimit``.
  static let slowReadTime = Duration.microseconds(100)

  /// Adds one file's reads.
  func add(calls: Int, bytes: Int, slowCalls: Int) {
    let total = self.calls.add(calls, ordering: .relaxed).newValue
    self.bytes.add(bytes, ordering: .relaxed)
    guard slowCalls > 0 else { return }
    let slow = self.slowCalls.add(slowCalls, ordering: .relaxed).newValue
    // At least 8 slow reads, and one in 8 or more: a cold disk, not a thread that was
    // descheduled during a read. Once cold, cold for the rest of the enumeration.
    if slow >= 8, slow * 8 >= total { cold.store(true, ordering: .relaxed) }
  }

  /// The `pread` calls made so far.
  var readCalls: Int { calls.load(ordering: .relaxed) }
  /// The bytes read so far.
  var bytesRead: Int { bytes.load(ordering: .relaxed) }
  /// Whether the reads so far came from the disk (see ``slowReadLimit``): then more
  /// readers (``ColdReaders``) pay.
  var isCold: Bool { cold.load(ordering: .relaxed) }
}

extension LibraryRoot {
  /// Opens the folder at `path` beneath the root, following no symbolic link on the way
  /// (for the scoped walk and the watcher).
  ///
  /// - Returns: The open folder, or `nil` when it is gone, not a folder, or reached
  ///   through a link.
  func openFolder(_ path: LibraryPath) -> FileDescriptor? {
    let options: FileDescriptor.OpenOptions = [.directory, .noFollow, .closeOnExec]
    if path.isRoot { return try? descriptor.open(at: Array(".".utf8), options: options) }
    do throws(SystemCallError) {
      if let folder = try descriptor.openBeneath(path.bytes, options: options) {
        return folder
      }
      // No openat2: one component at a time, none of them a link.
      var current = try descriptor.open(at: Array(".".utf8), options: options)
      for component in path.componentBytes {
        let next: FileDescriptor
        do {
          next = try current.open(at: component, options: options)
        } catch {
          current.close()
          throw error
        }
        current.close()
        current = next
      }
      return current
    } catch {
      return nil
    }
  }
}
