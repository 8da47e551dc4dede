import Foundation

extension AssetsLibrary {
  /// Finds the asset one of whose files is at `path`.
  ///
  /// The path is relative to the library root, as in ``Asset/path`` and
  /// ``AssetResource/path``: `DCIM/100APPLE/IMG_0100.JPG`, never `/srv/photos/…` and
  /// without `./`. Any of an asset's resources finds it: the movie of a Live Photo and a
  /// sidecar (`IMG_0200.AAE`) give the Live Photo, as its still does.
  ///
  /// ```swift
  /// if let asset = try await library.asset(at: LibraryPath("DCIM/100APPLE/IMG_0200.MOV")) {
  ///   print(asset.type)  // livePhoto
  /// }
  /// ```
  ///
  /// Only the group that holds `path` is considered, and only that file (with the other
  /// half of its Live Photo, when it may have one) is read, so a lookup costs one walk and
  /// one or two file reads. With an index (``LibraryOptions/index``) those files are taken
  /// from it when unchanged, and stored when read; the rows of other files are kept.
  ///
  /// - Parameter path: A file's path relative to the library root, compared byte for byte.
  /// - Returns: The asset, or `nil` when no asset has a file at `path`: nothing there, a
  ///   folder, a hidden or skipped file, a symbolic link, or a file that is not a photo or
  ///   video (``otherFile(at:)`` then gives the reason; it is not an error, as
  ///   ``LibraryError`` is kept for faults of the whole library).
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func asset(at path: LibraryPath) async throws(LibraryError) -> Asset? {
    let (root, scan) = try await scanCancellable()
    let holds: @Sendable (ScannedFile) -> Bool = { file in
      file.path == path || file.sidecars.contains { $0.path == path }
    }
    guard let group = scan.groups.first(where: { $0.files.contains(where: holds) }) else {
      return nil
    }
    // One file (or a pair) is read: its rows are looked up one by one, not all loaded.
    let (index, warnings) = await openIndex(root: root, loadsEverything: false)
    var queue = try await GroupQueue.prepare(
      group: group, filter: .all, fileSelection: holds, root: root, index: index,
      width: options.maximumConcurrency)
    var found: Asset?
    while !queue.isEmpty, found == nil {
      let assets = try await queue.nextBatch(
        size: 2, root: root, index: index, width: options.maximumConcurrency)
      found = assets.first { $0.resources.contains { $0.path == path } }
    }
    await closeIndex(index, scan: scan)
    IndexObserver.recordClosing(index, warnings: warnings)
    return found
  }

  /// Finds the file at `path` that is not an asset, with the reason it is not.
  ///
  /// ```swift
  /// if try await library.asset(at: path) == nil,
  ///   let other = try await library.otherFile(at: path)
  /// {
  ///   print(other.message)  // 'Notes/todo.txt' is a .txt file, not a photo or video …
  /// }
  /// ```
  ///
  /// Only the walk runs; nothing is read beyond the first bytes that decide whether a
  /// file is media.
  ///
  /// - Parameter path: A file's path relative to the library root, compared byte for byte.
  /// - Returns: The other file, or `nil` when the file at `path` is an asset's, or there
  ///   is no listed file there.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func otherFile(at path: LibraryPath) async throws(LibraryError) -> OtherFile? {
    let (_, scan) = try await scanCancellable()
    return scan.otherFiles.first { $0.path == path }
  }
}

/// Finds assets by path against one walk of the library, made at the first lookup and kept:
/// for a caller that looks up many assets in turn (the Demo's picture workers), where
/// ``AssetsLibrary/asset(at:)`` would walk the whole library for each. Each asset is read
/// from its files when it is looked up, as ``AssetsLibrary/asset(at:)`` reads it; a path the
/// kept walk does not hold, or whose file has changed so that it is no longer an asset
/// there, is looked up afresh.
package actor AssetFinder {
  private let library: AssetsLibrary
  /// The open root, the kept walk, and each file's (and sidecar's) group in it.
  private var walked: (root: LibraryRoot, scan: LibraryScan, groups: [LibraryPath: Int])?

  package init(library: AssetsLibrary) {
    self.library = library
  }

  /// The asset that has a file at `path`, or `nil`.
  ///
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  package func asset(at path: LibraryPath) async throws(LibraryError) -> Asset? {
    let (root, scan, groups) = try await walk()
    // A file gone since the walk is looked up afresh too (it may be a folder now).
    guard let index = groups[path],
      BeneathOpener.status(in: root.descriptor, relativePath: path.bytes)?.kind == .regular
    else { return try await library.asset(at: path) }
    let holds: @Sendable (ScannedFile) -> Bool = { file in
      file.path == path || file.sidecars.contains { $0.path == path }
    }
    let width = library.options.maximumConcurrency
    var queue = try await GroupQueue.prepare(
      group: scan.groups[index], filter: .all, fileSelection: holds, root: root, index: nil,
      width: width)
    while !queue.isEmpty {
      let assets = try await queue.nextBatch(size: 2, root: root, index: nil, width: width)
      if let found = assets.first(where: { $0.resources.contains { $0.path == path } }) {
        return found
      }
    }
    return try await library.asset(at: path)
  }

  /// The kept walk, made on the first call.
  private func walk() async throws(LibraryError) -> (
    LibraryRoot, LibraryScan, [LibraryPath: Int]
  ) {
    if let walked { return walked }
    let (root, scan) = try await library.scanCancellable()
    var groups: [LibraryPath: Int] = [:]
    for (index, group) in scan.groups.enumerated() {
      for file in group.files {
        groups[file.path] = index
        for sidecar in file.sidecars { groups[sidecar.path] = index }
      }
    }
    walked = (root, scan, groups)
    return (root, scan, groups)
  }
}
