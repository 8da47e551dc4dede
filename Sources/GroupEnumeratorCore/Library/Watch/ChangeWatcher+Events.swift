import Dispatch

/// The watch's side of the kernel: waiting for inotify events, marking what they name,
/// and keeping a watch on every folder as the tree changes.
extension ChangeWatcher {
  /// Waits until some folder is to be read again, then gathers events until the burst
  /// settles and the coalescing interval since the last change has passed.
  func gather() async throws(LibraryError) {
    let clock = ContinuousClock()
    while dirty.isEmpty && !needsWatchSync && !isRootGone {
      if Task.isCancelled { throw .cancelled }
      handle(await waitForEvents(milliseconds: ChangeWatcher.pollMilliseconds))
      checkRoot()
      if needsTrim, dirty.isEmpty {
        // Idle after a whole reading: its assets, released by now, are given back.
        needsTrim = false
        trimMemory()
      }
      let rescanInterval = max(
        ChangeWatcher.rescanInterval, wholeReadingTime * ChangeWatcher.rescanCostFactor)
      if folders.isIncomplete, clock.now - lastRescan >= rescanInterval {
        dirty.markEverything()
        needsWatchSync = true
      }
    }
    var deadline = clock.now + ChangeWatcher.settlingTime
    if let lastEmission { deadline = max(deadline, lastEmission + interval) }
    while !isRootGone, clock.now < deadline {
      if Task.isCancelled { throw .cancelled }
      let left = deadline - clock.now
      let milliseconds =
        left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
      handle(await waitForEvents(milliseconds: Int32(clamping: max(1, milliseconds))))
    }
    if Task.isCancelled { throw .cancelled }
  }

  /// Waits at most `milliseconds` for events on a global queue (never on the cooperative
  /// pool), and reads all that are queued.
  func waitForEvents(milliseconds: Int32) async -> [InotifyEvent] {
    guard let inotify else { return [] }
    return await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .utility).async {
        let ready = inotify.waitForEvents(milliseconds: milliseconds)
        continuation.resume(returning: ready ? inotify.readEvents() : [])
      }
    }
  }

  /// Marks what the events name: the folder of each changed file, the whole tree of a
  /// folder that appeared, moved or went away, everything after an overflow.
  func handle(_ events: [InotifyEvent]) {
    for event in events {
      if event.has(.queueOverflowed) {
        overflows += 1
        dirty.markEverything()
        needsWatchSync = true
        continue
      }
      if event.watch == folders.rootWatch,
        event.has([.folderDeleted, .folderMoved, .unmounted])
      {
        isRootGone = true
        continue
      }
      if event.has(.watchRemoved) {
        folders.forget(event.watch)
        continue
      }
      guard let folder = folders.path(of: event.watch) else { continue }
      guard !event.name.isEmpty else {
        // The folder itself was deleted or moved: its parent's event names it too.
        if event.has([.folderDeleted, .folderMoved]) {
          dirty.subtrees.insert(folder)
          needsWatchSync = true
        }
        continue
      }
      let path = folder.appending(event.name)
      dirty.folders.insert(folder)
      if event.isFolder {
        if event.has([.created, .deleted, .movedFrom, .movedTo]) {
          dirty.subtrees.insert(path)
          needsWatchSync = true
        }
        continue
      }
      if event.has(.modified) || (event.has(.created) && !isCompleteOnCreation(path)) {
        pending.insert(path)
      }
      if event.has([.closedAfterWriting, .movedFrom, .movedTo, .deleted]) {
        pending.remove(path)
      }
    }
  }

  /// Whether the entry just created at `path` is complete already: not a regular file, or
  /// a name given to a file that has content already — a second name of an existing file
  /// (`ln`), or a file written unnamed (`O_TMPFILE`) and then linked in (`linkat`), as
  /// programs that write atomically do. No `IN_CLOSE_WRITE` follows a link under the
  /// new name (an unnamed file's writes and close name it `#` and its inode number), so
  /// holding such a file back would hold it forever. A new file that is still being
  /// written names itself in its `IN_MODIFY` events, which hold it back again.
  ///
  /// The entry is described, not followed, when it is a symbolic link.
  func isCompleteOnCreation(_ path: LibraryPath) -> Bool {
    guard let root, let status = try? root.descriptor.status(ofEntry: path.bytes) else {
      return false
    }
    return status.kind != .regular || status.linkCount > 1 || status.size > 0
  }

  /// Marks the root gone when it was deleted: its link count is 0. (The kernel sends
  /// `IN_DELETE_SELF` only once the last descriptor of the folder is closed, and the
  /// root is held open, here and by callers that name it as `/proc/self/fd/N`.)
  func checkRoot() {
    guard let root, let status = try? root.descriptor.status() else { return }
    if status.linkCount == 0 { isRootGone = true }
  }

  /// Watches folders that appeared, follows moved ones and drops those that left, off
  /// the cooperative pool: walks only `subtrees` (the root: the whole library).
  func synchronizeWatches(_ subtrees: Set<LibraryPath> = [.root]) async {
    needsWatchSync = false
    guard let root, let inotify else { return }
    let options = library.options
    let current = folders
    folders = await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .utility).async {
        var folders = current
        folders.synchronize(
          subtrees: subtrees, root: root, inotify: inotify, options: options,
          isCancelled: { false })
        continuation.resume(returning: folders)
      }
    }
    if folders.isIncomplete, !hasWarnedOfRescans {
      hasWarnedOfRescans = true
      warnings.append(ChangeWatcher.rescanWarning(limit: Inotify.userWatchLimit()))
    } else if !folders.isIncomplete {
      hasWarnedOfRescans = false
    }
  }

  /// What the watch says when some folder cannot be watched: why, what it does instead,
  /// and the setting to raise.
  static func rescanWarning(limit: Int?) -> String {
    let current = limit.map { " (limit \($0))" } ?? ""
    return "Some folders cannot be watched: this user's inotify watches are used up"
      + "\(current), so the whole library is read again every"
      + " \(rescanInterval.components.seconds) s or more while it lasts. Raise the limit"
      + " to watch every folder: sysctl fs.inotify.max_user_watches"
      + " (user.max_inotify_watches in a user namespace)."
  }
}
