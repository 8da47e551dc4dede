import Dispatch
import FoundationEssentials

/// Listing: every asset at once, the groups, the assets of one group, the other files.
extension AssetsLibrary {
  /// Lists the groups of the requested kinds, with their counts.
  ///
  /// A still and a movie with one base name count as one Live Photo only when their
  /// contents confirm it, so those candidates (and only they) are read; with an index
  /// (``LibraryOptions/index``) they are taken from it when unchanged, and stored when read.
  ///
  /// - Parameter types: Which kinds of group to list (``AssetGroup/Types/all`` lists the
  ///   Camera Roll and albums; add ``AssetGroup/Types/library`` for All Photos).
  /// - Returns: The groups in order: Camera Roll, albums by path, All Photos.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func groups(types: AssetGroup.Types = .all) async throws(LibraryError) -> [AssetGroup] {
    var run = try await LibraryRun.start(self, index: .later)
    // A still and a movie with one base name are one asset only when their contents
    // confirm it, as in a listing; so the candidates (and only they) are read here, and
    // the index is opened only when there is one (for lookups: the rows are not all read).
    if run.scan.groups.contains(where: { !LivePhotoPairing.candidates(in: $0.files).isEmpty }) {
      run = await run.openingIndex()
    }
    var groups: [AssetGroup] = []
    var everything: [AssetType: Int] = [:]
    for group in run.scan.groups {
      let wanted = types.contains(kind: group.kind)
      guard wanted || types.contains(.library) else { continue }
      let counts: [AssetType: Int]
      if LivePhotoPairing.candidates(in: group.files).isEmpty {
        counts = EnumerationPlan.counts(of: group.files, filter: .all)
      } else {
        counts = try await run.queue(for: group, filter: .all).typeCounts
      }
      if wanted { groups.append(AssetGroup(kind: group.kind, path: group.path, counts: counts)) }
      everything.merge(counts, uniquingKeysWith: +)
    }
    if types.contains(.library) {
      groups.append(AssetGroup(kind: .library, path: .root, counts: everything))
    }
    try run.cancellation.check()
    // Stores the candidates read; an index opened for lookups drops no row.
    await run.finish()
    return groups
  }

  /// Reads the assets of one group.
  ///
  /// - Parameters:
  ///   - group: A group from ``groups(types:)``; the All Photos group reads every asset.
  ///   - filter: Which assets to include.
  /// - Returns: The group's assets, ordered by file name.
  /// - Throws: ``LibraryError`` for a library-level fault or cancellation.
  public func assets(in group: AssetGroup, filter: AssetFilter = .all) async throws(LibraryError)
    -> [Asset]
  {
    let wanted = ScannedGroup.Key(kind: group.kind, path: group.path)
    let contents = try await list(
      filter: filter,
      groupSelection: { group.kind == .library || $0.key == wanted },
      progress: { _, _ in })
    return contents.assets
  }

  /// Reads every asset that passes `filter`, reporting progress on the main actor.
  ///
  /// Files that are not photos or videos are not assets: they are listed in
  /// ``Contents/otherFiles``, never counted in `total`.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - progress: Called on the main actor with `(current, total)`; `total` counts
  ///     every asset across all groups, `current` only grows, and the last call is
  ///     always `(total, total)`. Calls may be coalesced.
  /// - Returns: The groups and the assets, in a deterministic order.
  /// - Throws: ``LibraryError`` for a library-level fault or cancellation.
  public func enumerate(
    filter: AssetFilter = .all,
    progress: @escaping @MainActor @Sendable (_ current: Int, _ total: Int) -> Void = { _, _ in }
  ) async throws(LibraryError) -> Contents {
    guard options.index != .none, !options.keepsIndexQuietly else {
      return try await list(filter: filter, progress: progress)
    }
    // With an index, the last enumeration may have been kept whole beside it
    // (``ContentsSnapshot``): handed back when the library reads as it read then.
    let library = self
    let (snapshot, outcome) = await Self.offTheActor {
      () -> (ContentsSnapshot?, ContentsSnapshot.Outcome?) in
      let snapshot = ContentsSnapshot(library: library, filter: filter)
      return (snapshot, snapshot?.replay())
    }
    var before: ContentsSnapshot.Before?
    switch outcome {
    case .contents(let replayed):
      guard !Task.isCancelled else { throw .cancelled }
      let total = replayed.assets.count
      await MainActor.run { progress(total, total) }
      return replayed
    case .missed(let fingerprint): before = fingerprint
    case nil: break
    }
    let contents = try await list(filter: filter, progress: progress)
    if let snapshot, !Task.isCancelled {
      await Self.offTheActor { [before] in snapshot.record(contents, before: before) }
    }
    return contents
  }

  /// `body`'s result, computed on a global queue (it blocks: file system calls).
  private static func offTheActor<Result: Sendable>(
    _ body: @escaping @Sendable () -> Result
  ) async -> Result {
    await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: body()) }
    }
  }

  /// Lists the files of the library that are not assets, by path, each with the reason:
  /// files that are photos or videos neither by name nor by content (a `.txt`,
  /// `Thumbs.db`, a PDF) and sidecars that fit no single asset.
  ///
  /// Only the walk runs (and reads the first bytes of files whose name is not a media
  /// one): no metadata is read. Use it beside ``assets(filter:batchSize:)``, which
  /// delivers assets only.
  ///
  /// - Returns: The other files, sorted by path bytes.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func otherFiles() async throws(LibraryError) -> [OtherFile] {
    try await LibraryRun.start(self, index: .later).scan.otherFiles
  }

  /// One listing: walks (the folders of `scope`, or all), plans and reads the selected
  /// files in parallel, and returns what ``enumerate(filter:progress:)`` returns.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - groupSelection: Which scanned groups to read (all by default).
  ///   - fileSelection: Which files of those groups to read (all by default).
  ///   - scope: The folders to list (`nil`: the whole library); only their groups are
  ///     read and returned, and the index is opened for lookups, so no row is dropped.
  ///   - progress: The caller's progress closure.
  func list(
    filter: AssetFilter,
    groupSelection: @escaping @Sendable (ScannedGroup) -> Bool = { _ in true },
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool = { _ in true },
    scope: WalkScope? = nil,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> Contents {
    let run = try await LibraryRun.start(
      self, scope: scope, index: scope == nil ? .everything : .lookups)
    // Live Photo candidates are read first, so that the total counts each confirmed pair
    // once before the first progress call.
    let plan = try await run.plan(
      groups: run.scan.groups.filter(groupSelection), filter: filter,
      fileSelection: fileSelection)
    let (assets, statistics) = try await run.collect(plan, progress: progress)
    return Contents(
      groups: run.groups(plan, filter: filter), assets: assets, otherFiles: run.scan.otherFiles,
      folderProblems: run.folderProblems, statistics: statistics, warnings: run.warnings)
  }
}
