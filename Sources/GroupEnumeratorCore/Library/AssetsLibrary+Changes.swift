extension AssetsLibrary {
  /// Starts watching the library and returns its changes as they happen.
  ///
  /// ```swift
  /// for try await change in try await library.changes() {
  ///   print(change.insertedAssets.count, "new")
  /// }
  /// ```
  ///
  /// When this returns, every folder of the library is watched (Linux inotify) and the
  /// library has been read once: every change after that point is reported, as a
  /// ``LibraryChange`` that agrees with what ``enumerate(filter:progress:)`` says before
  /// and after it. New folders are watched as they appear (and read, since files can land
  /// in them before the watch), moved folders are followed, links are never followed out
  /// of the library, and nothing is ever written to it.
  ///
  /// A file is reported once it is complete: closed after writing, or moved in. A burst
  /// of events is one change, and changes come at most once per `interval`. When the
  /// kernel's event queue overflows, or a folder cannot be watched because
  /// `max_user_watches` is reached, the whole library is read again (and, while a folder
  /// is unwatched, every two seconds) and diffed against the last known state: nothing is
  /// missed, only delayed. With ``LibraryOptions/index`` set, every reading uses the index.
  ///
  /// The sequence can be iterated once. It ends (returns `nil`) when the iterating task
  /// is cancelled, and throws ``LibraryError/rootNotFound(path:)`` when the root is
  /// deleted or moved. The inotify descriptor and the root are closed when it ends, or
  /// when the sequence and its iterator are dropped.
  ///
  /// - Parameter interval: The shortest time between two changes. Default: 250 ms (at
  ///   most four changes a second).
  /// - Returns: The changes, as an `AsyncSequence`.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/unreadableRoot(path:call:errno:)`` naming `inotify_init1` when no
  ///   inotify instance is available (too many open descriptors or instances).
  public func changes(coalescing interval: Duration = .milliseconds(250))
    async throws(LibraryError) -> LibraryChanges
  {
    LibraryChanges(watcher: try await ChangeWatcher.start(library: self, interval: interval))
  }
}

/// The changes of a library as they happen: see ``AssetsLibrary/changes(coalescing:)``.
public struct LibraryChanges: AsyncSequence, Sendable {
  /// A change.
  public typealias Element = LibraryChange
  /// What ends the sequence with an error: the root gone or unreadable.
  public typealias Failure = LibraryError

  let watcher: ChangeWatcher

  /// The warnings about the watch since the last call, each once: that some folder
  /// cannot be watched because the user's limit of inotify watches
  /// (`fs.inotify.max_user_watches`) is reached, so the whole library is read again on a
  /// timer instead. Ask after ``AssetsLibrary/changes(coalescing:)`` returns and after
  /// each change.
  public func warnings() async -> [String] { await watcher.takeWarnings() }

  /// Makes the iterator; the sequence has one stream of changes, shared by every
  /// iterator made from it.
  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(watcher: watcher) }

  /// Waits for the next change.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let watcher: ChangeWatcher

    /// The next change, or `nil` once the task is cancelled.
    ///
    /// - Throws: ``LibraryError`` when the root was deleted, moved or became unreadable.
    public mutating func next() async throws(LibraryError) -> LibraryChange? {
      try await watcher.next()
    }

    /// The next change, or `nil` once the task is cancelled.
    ///
    /// - Throws: ``LibraryError`` when the root was deleted, moved or became unreadable.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(LibraryError)
      -> LibraryChange?
    {
      try await watcher.next()
    }
  }
}
