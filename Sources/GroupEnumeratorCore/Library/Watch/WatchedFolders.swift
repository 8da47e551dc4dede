/// The inotify watches on the folders of a library: which watch is which folder, kept in
/// step with the tree by walking it again (``synchronize(root:inotify:options:)``).
///
/// A watch follows its folder's inode, not its path: a folder renamed inside the library
/// keeps its watch, and the next synchronisation gives the watch the new path. Folders are
/// opened beneath the root without following any symbolic link (`openat2` with
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, or `openat` with `O_NOFOLLOW` one component
/// at a time), and watched through the open descriptor: a link to a folder outside the
/// library is never watched, nor anything behind it.
struct WatchedFolders {
  /// Each watch's folder, relative to the root.
  private(set) var paths: [Int32: LibraryPath] = [:]
  /// The root folder's watch.
  private(set) var rootWatch: Int32?
  /// Whether a folder could not be watched because `max_user_watches` was reached (or
  /// the kernel ran out of memory for watches): its changes are then only found by
  /// rescanning.
  private(set) var isIncomplete = false
  /// How many folders the synchronisations opened, all told (a diagnostic for tests).
  private(set) var foldersWalked = 0

  /// How deep folders are watched, as deep as the library walk reads them.
  static let maximumDepth = LibraryScanner.maximumDepth

  /// Folder names the walk never enters (NAS thumbnails and recycle bins).
  private static let skippedNames: Set<[UInt8]> = [
    Array("@eaDir".utf8), Array("#recycle".utf8), Array(".@__thumb".utf8),
  ]

  /// The folder of a watch, or `nil` for a watch no longer known.
  func path(of watch: Int32) -> LibraryPath? { paths[watch] }

  /// Forgets a watch the kernel dropped (`IN_IGNORED`: its folder was deleted).
  mutating func forget(_ watch: Int32) {
    paths[watch] = nil
  }

  /// Walks every folder of the library, watches the ones not yet watched, gives moved
  /// ones their new paths, and stops the watches of folders no longer in the library
  /// (moved out of it).
  ///
  /// - Parameters:
  ///   - root: The open root folder.
  ///   - inotify: The instance to add watches to.
  ///   - options: Which folders the library walk enters (hidden ones, the selection).
  ///   - isCancelled: Polled between folders.
  mutating func synchronize(
    root: LibraryRoot, inotify: Inotify, options: LibraryOptions, isCancelled: () -> Bool
  ) {
    var found: [Int32: LibraryPath] = [:]
    var incomplete = false
    guard
      walk(
        from: [(.root, 0)], root: root, inotify: inotify, options: options,
        isCancelled: isCancelled, found: &found, incomplete: &incomplete)
    else { return }
    for (watch, _) in paths where found[watch] == nil {
      inotify.removeWatch(watch)
    }
    paths = found
    isIncomplete = incomplete
  }

  /// Walks only the folders at `subtrees` and everything below them (folders that
  /// appeared, moved or went away): watches the new ones, gives moved ones their new
  /// paths, and stops the watches of folders once below a subtree and no longer found
  /// anywhere in them. The root among `subtrees` walks the whole library.
  ///
  /// - Parameters:
  ///   - subtrees: The folders whose trees changed.
  ///   - root: The open root folder.
  ///   - inotify: The instance to add watches to.
  ///   - options: Which folders the library walk enters (hidden ones, the selection).
  ///   - isCancelled: Polled between folders.
  mutating func synchronize(
    subtrees: Set<LibraryPath>, root: LibraryRoot, inotify: Inotify, options: LibraryOptions,
    isCancelled: () -> Bool
  ) {
    if subtrees.contains(.root) || rootWatch == nil {
      return synchronize(root: root, inotify: inotify, options: options, isCancelled: isCancelled)
    }
    var found: [Int32: LibraryPath] = [:]
    var incomplete = false
    let starts = subtrees.filter { isEntered(path: $0, options: options) }.map { path in
      (path: path, depth: path.componentBytes.count)
    }
    guard
      walk(
        from: starts, root: root, inotify: inotify, options: options,
        isCancelled: isCancelled, found: &found, incomplete: &incomplete)
    else { return }
    for (watch, path) in paths
    where found[watch] == nil && subtrees.contains(where: { $0.encloses(path) }) {
      inotify.removeWatch(watch)
      paths[watch] = nil
    }
    paths.merge(found) { _, new in new }
    isIncomplete = isIncomplete || incomplete
  }

  /// Watches the folders at `starts` and every folder the library walk enters below them.
  ///
  /// - Returns: `false` when cancelled.
  private mutating func walk(
    from starts: [(path: LibraryPath, depth: Int)], root: LibraryRoot, inotify: Inotify,
    options: LibraryOptions, isCancelled: () -> Bool, found: inout [Int32: LibraryPath],
    incomplete: inout Bool
  ) -> Bool {
    var pending = starts
    while let (path, depth) = pending.popLast() {
      if isCancelled() { return false }
      guard let folder = root.openFolder(path) else { continue }
      foldersWalked += 1
      do {
        let watch = try inotify.addWatch(folder: folder)
        found[watch] = path
        if path.isRoot { rootWatch = watch }
      } catch {
        // ENOSPC: max_user_watches reached. The folder's files are still read by every
        // rescan; the watcher rescans on a timer while any folder is unwatched.
        if error.errno == .noSpace || error.errno == .outOfMemory { incomplete = true }
      }
      guard depth < WatchedFolders.maximumDepth,
        let stream = try? DirectoryStream(folder)
      else {
        folder.close()
        continue
      }
      defer { stream.close() }
      while let entry = try? stream.next() {
        let name = entry.name
        guard name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")],
          entry.kind != .regular, isEntered(name, in: path, options: options)
        else { continue }
        if entry.kind == .other {
          // `d_type` unknown or not a folder: ask without following a link.
          guard let status = try? stream.descriptor.status(ofEntry: name),
            status.kind == .directory
          else { continue }
        }
        pending.append((path.appending(name), depth + 1))
      }
    }
    return true
  }

  /// Whether the library walk enters every folder on the way to `path`, and `path`.
  private func isEntered(path: LibraryPath, options: LibraryOptions) -> Bool {
    let components = path.componentBytes
    guard components.count <= WatchedFolders.maximumDepth else { return false }
    var parent = LibraryPath.root
    for name in components {
      guard !name.isEmpty, name != [UInt8(ascii: ".")],
        name != [UInt8(ascii: "."), UInt8(ascii: ".")],
        isEntered(name, in: parent, options: options)
      else { return false }
      parent = parent.appending(name)
    }
    return true
  }

  /// Whether the library walk enters the folder `name` of `parent`.
  private func isEntered(_ name: [UInt8], in parent: LibraryPath, options: LibraryOptions)
    -> Bool
  {
    guard !WatchedFolders.skippedNames.contains(name) else { return false }
    if name.first == UInt8(ascii: "."), !options.includesHiddenFiles { return false }
    return options.selection.selectsEverything
      || options.selection.includesFolder(at: parent.appending(name))
  }
}
