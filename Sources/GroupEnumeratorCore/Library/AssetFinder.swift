/// Finds assets by path against one walk of the library, made at the first lookup and kept:
/// for a caller that looks up many assets in turn (the Demo's picture workers), where
/// ``AssetsLibrary/asset(at:)`` would walk the whole library for each. Each asset is read
/// from its files when it is looked up, as ``AssetsLibrary/asset(at:)`` reads it (the same
/// ``LibraryRun/asset(at:in:)``); a path the kept walk does not hold, or whose file has
/// changed so that it is no longer an asset there, is looked up afresh.
package actor AssetFinder {
  private let library: AssetsLibrary
  /// The kept walk (a run without an index), and each file's (and sidecar's) group in it.
  private var walked: (run: LibraryRun, groups: [LibraryPath: Int])?

  package init(library: AssetsLibrary) {
    self.library = library
  }

  /// The asset that has a file at `path`, or `nil`.
  ///
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  package func asset(at path: LibraryPath) async throws(LibraryError) -> Asset? {
    let (kept, groups) = try await walk()
    // A file gone since the walk is looked up afresh too (it may be a folder now).
    guard let index = groups[path],
      BeneathOpener.status(in: kept.root.descriptor, relativePath: path.bytes)?.kind == .regular
    else { return try await library.asset(at: path) }
    // A flag of this lookup's own: a cancelled lookup leaves the kept walk usable.
    let run = kept.withNewCancellation()
    if let found = try await run.asset(at: path, in: run.scan.groups[index]) { return found }
    return try await library.asset(at: path)
  }

  /// The kept walk, made on the first call.
  private func walk() async throws(LibraryError) -> (LibraryRun, [LibraryPath: Int]) {
    if let walked { return walked }
    let run = try await LibraryRun.start(library, index: .later)
    var groups: [LibraryPath: Int] = [:]
    for (index, group) in run.scan.groups.enumerated() {
      for file in group.files {
        groups[file.path] = index
        for sidecar in file.sidecars { groups[sidecar.path] = index }
      }
    }
    walked = (run, groups)
    return (run, groups)
  }
}
