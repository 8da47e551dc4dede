import Dispatch
import FoundationEssentials
import Synchronization

/// Watches a library with inotify and turns what the kernel reports into
/// ``LibraryChange``s, one per call to ``next()``.
///
/// Events only say *where* to look: each folder they name (or the whole library, after
/// an overflow) is read again with the library's own enumeration, and the result is
/// diffed against the last ``LibrarySnapshot``. A file that was created or written to and
/// not yet closed (`IN_CREATE`/`IN_MODIFY` without `IN_CLOSE_WRITE`) is left out of the
/// reading, and its asset keeps its last known state, until it is closed, moved or
/// deleted.
///
/// The watcher holds the inotify instance and the open root; both are closed when it
/// ends (the root disappears, the task is cancelled) or when the last reference to it
/// goes.
///
/// This file holds the watch's life and its readings; ChangeWatcher+Events.swift its
/// events and folder watches, which is why the state below is internal, not private.
actor ChangeWatcher {
  let library: AssetsLibrary
  let interval: Duration
  var root: LibraryRoot?
  var inotify: Inotify?
  var folders = WatchedFolders()
  /// What the watch last knew of the library (read by tests).
  private(set) var snapshot = LibrarySnapshot()
  var dirty = DirtyFolders()
  var pending: Set<LibraryPath> = []
  var needsWatchSync = false
  var isRootGone = false
  var lastEmission: ContinuousClock.Instant?
  var lastRescan = ContinuousClock.now
  /// How long the last reading of the whole library took.
  var wholeReadingTime = Duration.zero
  /// Whether the rescans for unwatched folders have been warned of (again once every
  /// folder was watched for a while).
  var hasWarnedOfRescans = false
  /// Whether a whole reading's memory is to be given back once the watch is idle.
  var needsTrim = false
  /// Warnings not yet taken by ``takeWarnings()``.
  var warnings: [String] = []
  private var isFinished = false
  /// How many times the kernel's event queue overflowed (a diagnostic for tests).
  var overflows = 0
  /// How many times each folder was listed since the watch started, the first reading
  /// included (a diagnostic for tests; as large as the library's set of folders).
  private(set) var listings: [LibraryPath: Int] = [:]
  /// How many folders the watch synchronisations walked, all told (a diagnostic for
  /// tests).
  var foldersWalkedForWatches: Int { folders.foldersWalked }

  /// How long events are gathered after the first one, so that a burst is one change.
  static let settlingTime = Duration.milliseconds(50)
  /// How often, at most, the whole library is read again while some folder cannot be
  /// watched (`max_user_watches` reached); never sooner than ``rescanCostFactor`` times
  /// what the last whole reading took, so that the rescans take at most a tenth of the
  /// time whatever the library's size.
  static let rescanInterval = Duration.seconds(2)
  /// How many times the last whole reading's time passes between two rescans.
  static let rescanCostFactor = 10
  /// How long one wait for events lasts before cancellation is checked again.
  static let pollMilliseconds: Int32 = 200

  private init(library: AssetsLibrary, interval: Duration, root: LibraryRoot, inotify: Inotify) {
    self.library = library
    self.interval = interval
    self.root = root
    self.inotify = inotify
  }

  /// Starts watching: watches every folder, then reads the library once for the state
  /// later changes are diffed against.
  ///
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or when no
  ///   inotify instance can be had (``LibraryError/unreadableRoot(path:call:errno:)``
  ///   naming `inotify_init1`: too many instances or descriptors).
  ///
  /// - Parameter watchLimit: At most this many folders are watched (a stand-in for
  ///   `max_user_watches` in tests); `nil`: as many as the kernel allows.
  static func start(
    library: AssetsLibrary, interval: Duration, watchLimit: Int? = nil
  ) async throws(LibraryError) -> ChangeWatcher {
    let path = library.rootPath
    let root = try LibraryRoot(
      path: path, verifiesFileEnds: library.options.verifiesFileEnds)
    let inotify: Inotify
    do {
      inotify = try Inotify(watchLimit: watchLimit)
    } catch {
      throw .unreadableRoot(path: path, call: error.function, errno: error.errno.rawValue)
    }
    let watcher = ChangeWatcher(
      library: library, interval: interval, root: root, inotify: inotify)
    try await watcher.prepare()
    return watcher
  }

  private func prepare() async throws(LibraryError) {
    await synchronizeWatches()
    _ = try await readWhole(reportsChanges: false)
    needsTrim = true
  }

  /// The warnings since the last call: that some folder cannot be watched, so the whole
  /// library is read again on a timer (said once, again if it happens after every folder
  /// was watched).
  func takeWarnings() -> [String] {
    defer { warnings = [] }
    return warnings
  }

  /// The next change: waits for events, gathers a burst (no sooner than the coalescing
  /// interval after the previous change), reads the affected folders and returns what
  /// differs. Returns `nil` once the calling task is cancelled.
  ///
  /// - Throws: ``LibraryError/rootNotFound(path:)`` when the root was deleted or moved,
  ///   or another ``LibraryError`` when it can no longer be read; the watcher is then
  ///   finished.
  func next() async throws(LibraryError) -> LibraryChange? {
    guard !isFinished else { return nil }
    do throws(LibraryError) {
      while true {
        try await gather()
        checkRoot()
        if isRootGone { throw .rootNotFound(path: library.rootPath) }
        if needsWatchSync { await synchronizeWatches(dirty.subtrees) }
        let marked = dirty
        dirty = DirtyFolders()
        let change: LibraryChange
        if marked.subtrees.contains(.root) {
          change = try await readWhole(reportsChanges: true)
        } else {
          change = try await readPart(marked)
        }
        if marked.subtrees.contains(.root) { needsTrim = true }
        if !change.isEmpty {
          lastEmission = .now
          return change
        }
      }
    } catch .cancelled {
      finish()
      return nil
    } catch {
      finish()
      throw error
    }
  }

  /// Closes the inotify instance and the root (once nothing waits on them any more).
  private func finish() {
    isFinished = true
    inotify = nil
    root = nil
  }

  // MARK: - Reading

  /// Reads the marked folders again (see ``rescan(_:)``) and replaces their groups in the
  /// snapshot: the cost is theirs, not the library's.
  private func readPart(_ marked: DirtyFolders) async throws(LibraryError) -> LibraryChange {
    let (part, read, replaced) = try await rescan(marked)
    // The reading sees the folders as they are now, ahead of the events read so far: a
    // file created or written to meanwhile may have been read half-written. Its events
    // are read now; such a file keeps its last known state, and its folder is read again
    // next time.
    handle(await waitForEvents(milliseconds: 0))
    let fresh = part.holdingBack(pending, as: snapshot)
    let change = LibrarySnapshot.change(from: snapshot.part(replaced), to: fresh, read: read)
    snapshot.replace(replaced, with: fresh)
    return change
  }

  /// Reads the whole library again a group at a time, comparing and replacing each group
  /// in the snapshot as soon as it is read, then drops the groups that are gone. The
  /// watch so holds one snapshot, the walk's file list and one group's assets — never a
  /// second state of the library, nor the assets of all of it (what an inotify overflow
  /// or a rescan for unwatched folders would otherwise cost on a large library).
  ///
  /// An asset's group follows from its primary file's folder, so no asset moves between
  /// groups from one reading to the next, and each group's change is its own.
  ///
  /// - Parameter reportsChanges: Whether the change is gathered (not for the first
  ///   reading, which reports nothing).
  private func readWhole(reportsChanges: Bool) async throws(LibraryError) -> LibraryChange {
    lastRescan = .now
    let clock = ContinuousClock()
    let started = clock.now
    defer { wholeReadingTime = clock.now - started }
    var scope = WalkScope(folders: [], subtrees: [.root])
    let listed = Mutex<[LibraryPath]>([])
    scope.didListFolder = { path in listed.withLock { $0.append(path) } }
    let run = try await LibraryRun.start(library, scope: scope, index: .everything)
    for path in listed.withLock({ $0 }) { listings[path, default: 0] += 1 }
    var collected = ChangeCollector()
    var seen: Set<ScannedGroup.Key> = []
    for group in run.scan.groups {
      let pending = self.pending
      var queue = try await run.queue(
        for: group, filter: .all, fileSelection: { !pending.contains($0.path) })
      var assets: [Asset] = []
      while !queue.isEmpty {
        assets += try await run.nextBatch(of: &queue, size: ChangeWatcher.batchSize)
      }
      // The group as known before, alone: the reading runs on another thread, and a
      // reference to the whole snapshot there would make replacing a group copy it.
      let before = snapshot.part([group.key])
      let (part, read) = try await reading(
        of: [group.key], assets: assets, previous: before, pending: pending,
        keepsAssets: reportsChanges)
      assets = []
      // As for a part: a file written to while its group was read keeps its last state.
      handle(await waitForEvents(milliseconds: 0))
      let fresh = part.holdingBack(self.pending, as: before)
      if reportsChanges {
        collected.add(LibrarySnapshot.change(from: before, to: fresh, read: read))
      }
      snapshot.replace([group.key], with: fresh)
      seen.insert(group.key)
    }
    await run.finish()
    let gone = Set(snapshot.groups.keys).subtracting(seen)
    if reportsChanges {
      collected.add(
        LibrarySnapshot.change(from: snapshot.part(gone), to: LibrarySnapshot(), read: [:]))
    }
    snapshot.replace(gone, with: LibrarySnapshot())
    return collected.change
  }

  /// How many files a whole reading reads at once.
  static let batchSize = 256

  /// Lists the marked folders (and every other folder of a group with a marked one)
  /// again and reads their groups; never the whole library (``readWhole(reportsChanges:)``
  /// does that).
  ///
  /// - Returns: The groups read, as they are now; the assets read that differ from the
  ///   last state (only those are kept); and the keys of every group they replace (those
  ///   read, and those known before that are gone).
  private func rescan(
    _ marked: DirtyFolders
  ) async throws(LibraryError) -> (LibrarySnapshot, [UUID: Asset], Set<ScannedGroup.Key>) {
    lastRescan = .now
    let old = snapshot
    var scope = WalkScope(folders: marked.folders, subtrees: marked.subtrees)
    var replaced = Set(
      old.groups.filter { $0.value.folders.contains(where: marked.contains) }.keys)
    // The Camera Roll is the root's files and everything under a top-level DCIM: a change
    // in any of its folders lists all of them, so that it is read whole.
    let cameraRoll = old.groups.first { $0.key.kind == .savedPhotos }
    if let cameraRoll,
      scope.folders.contains(where: LibraryWalk.isCameraRoll)
        || scope.subtrees.contains(where: LibraryWalk.isCameraRoll)
    {
      replaced.insert(cameraRoll.key)
    }
    for key in replaced { scope.folders.formUnion(old.groups[key]?.folders ?? []) }
    let listed = Mutex<[LibraryPath]>([])
    scope.didListFolder = { path in listed.withLock { $0.append(path) } }
    let pending = self.pending
    let contents = try await library.list(
      filter: .all, fileSelection: { !pending.contains($0.path) }, scope: scope,
      progress: { _, _ in })
    for path in listed.withLock({ $0 }) { listings[path, default: 0] += 1 }
    let keys = contents.groups.map { ScannedGroup.Key(kind: $0.kind, path: $0.path) }
    replaced.formUnion(keys)
    let (part, read) = try await reading(
      of: keys, assets: contents.assets, previous: old.part(Set(keys)), pending: pending,
      keepsAssets: true)
    return (part, read, replaced)
  }

  /// ``LibrarySnapshot/reading(of:assets:previous:pending:root:keepsAssets:)`` on a global
  /// queue (it takes each file's key, a system call per file), never on the cooperative
  /// pool.
  private func reading(
    of keys: [ScannedGroup.Key], assets: [Asset], previous old: LibrarySnapshot,
    pending: Set<LibraryPath>, keepsAssets: Bool
  ) async throws(LibraryError) -> (LibrarySnapshot, [UUID: Asset]) {
    guard let root else { throw .cancelled }
    return await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .utility).async {
        continuation.resume(
          returning: LibrarySnapshot.reading(
            of: keys, assets: assets, previous: old, pending: pending, root: root,
            keepsAssets: keepsAssets))
      }
    }
  }

  /// Gives the memory freed by a reading of the whole library back to the system (the
  /// reading's assets are many small blocks the allocator would otherwise keep), so that
  /// an idle watch holds only its snapshot.
  func trimMemory() {
    CurrentProcess.trimHeap()
  }
}
