public import Foundation

/// A photo library on disk: a folder tree of photos and videos, read the way
/// `ALAssetsLibrary` read the device's library.
///
/// ```swift
/// let library = AssetsLibrary(root: URL(fileURLWithPath: "/srv/photos"))
/// let contents = try await library.enumerate(filter: .all) { done, total in
///   print("\(done)/\(total)")
/// }
/// ```
///
/// The library is only ever read. All results are `Sendable` values.
///
/// ## Overview
///
/// Nothing happens when you create a library; each call walks the folder tree again, so
/// every result reflects the files as they are now. The walk opens everything beneath
/// the root's descriptor without following symbolic links, skips NAS thumbnail folders,
/// AppleDouble files and (unless ``LibraryOptions/includesHiddenFiles``) hidden files, and
/// lists every other regular file exactly once: as an ``Asset``, as a resource of one, or
/// as an ``OtherFile`` (not a photo or video: a text file, `Thumbs.db`, a PDF, a sidecar
/// that fits no asset), which no count, group or legacy call includes.
///
/// ## Choosing a call
///
/// - ``enumerate(filter:progress:)``: every asset and group at once, with progress and
///   timing; the assets are held until the call returns.
/// - ``assets(filter:batchSize:)``: the same assets in the same order as an
///   `AsyncSequence`, read a batch at a time, for libraries too big to hold at once.
/// - ``groups(types:)`` and ``assets(in:filter:)``: the Camera Roll, the albums and the
///   assets of one group, as `enumerateGroupsWithTypes:` and `enumerateAssetsUsingBlock:`
///   gave them.
/// - ``asset(for:)`` and ``asset(at:)``: one asset, by its `assets-library://` URL or by
///   the path of any of its files.
/// - ``systemPhotoAlbumPhoto(success:progress:fail:)``: the original block-based port,
///   handing over legacy dictionaries.
///
/// ## Progress and the main actor
///
/// Progress closures (and the legacy `success`, `progress` and `fail` blocks) are
/// `@MainActor`: they run isolated to the main actor, one at a time, never two at once
/// and never concurrently with other main-actor code. On Linux that does **not** mean
/// they run on the process's main thread. Once top-level code (or an
/// `@main static func main() async`) has suspended at its first `await`, the main actor's
/// work is run by the main dispatch queue, which Dispatch drains on a worker thread, so
/// `Thread.isMainThread` is `false` inside a progress closure even though the closure is
/// main-actor isolated. Check isolation with `MainActor.assertIsolated()` or
/// `MainActor.assumeIsolated(_:)`, never with `Thread.isMainThread`.
///
/// The main actor must also be free for progress to be delivered: a program that
/// blocks the main thread (a semaphore, a `sleep`, a synchronous `wait`) starves the
/// closures and, for the legacy call, the final `success`. Await instead: the
/// enumeration itself (`try await library.enumerate(…)`), or the handle the legacy call
/// returns (`await handle.wait()`). A program that returns from its top-level code
/// before the work is done exits without printing anything.
///
/// ## Errors
///
/// A bad file never stops an enumeration: it is an asset whose ``Asset/problems`` say
/// what is wrong. Only a library-level fault throws ``LibraryError``: the root missing,
/// not a folder, not readable, or the task cancelled.
public final class AssetsLibrary: Sendable {
  /// The root folder as given.
  public let root: URL
  /// What the walk includes and how many files are read at once.
  public let options: LibraryOptions

  /// Creates a library over the folder at `root`. Nothing is read until you ask.
  ///
  /// - Parameters:
  ///   - root: The library's root folder.
  ///   - options: What the walk includes and how many files are read at once.
  public init(root: URL, options: LibraryOptions = LibraryOptions()) {
    self.root = root
    self.options = options
  }

  /// Everything one enumeration found.
  public struct Contents: Sendable {
    /// The groups, Camera Roll first, then albums by path (plus All Photos when asked).
    public let groups: [AssetGroup]
    /// The assets that passed the filter, in group order, then by file name.
    public let assets: [Asset]
    /// The files of the library that are not assets (not photos or videos, or sidecars
    /// that fit no asset), by path, each with its reason; the filter does not apply to
    /// them. They are not in ``assets``, in `total` or in any group's counts.
    public let otherFiles: [OtherFile]
    /// Folders that could not be listed, with the reason; their files are missing
    /// from ``assets``.
    public let folderProblems: [LibraryPath: AssetProblem]
    /// Diagnostics: how long each phase of the enumeration took, and how often it
    /// reported progress (see ``EnumerationStatistics``).
    public let statistics: EnumerationStatistics
    /// What went wrong beside the library that did not change what was found (an index
    /// that was rebuilt or could not be used), each a sentence for people; usually empty.
    public let warnings: [String]
  }

  /// Lists the groups of the requested kinds, with their counts.
  ///
  /// A still and a movie with one base name count as one Live Photo only when their
  /// contents confirm it, so those candidates (and only they) are read; with an index
  /// (``LibraryOptions/index``) they are taken from it when unchanged, and stored when read.
  ///
  /// - Parameter types: Which kinds of group to list (``AssetGroup/Types/all`` lists the
  ///   Camera Roll and albums; add ``AssetGroup/Types/library`` for All Photos).
  /// - Returns: The groups in order: Camera Roll, albums by path, All Photos.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root.
  public func groups(types: AssetGroup.Types = .all) async throws(LibraryError) -> [AssetGroup] {
    let cancellation = CancellationFlag()
    let (root, scan) = try await self.scan(cancellation: cancellation)
    let hasCandidates = scan.groups.contains {
      !LivePhotoPairing.candidates(in: $0.files).isEmpty
    }
    // Opened only when a candidate is to be read: nothing else here reads a file.
    // (Only the candidates are looked up, so the rows are not all loaded.)
    let (index, warnings) =
      hasCandidates ? await openIndex(root: root, loadsEverything: false) : (nil, [])
    var groups: [AssetGroup] = []
    var everything: [AssetType: Int] = [:]
    for group in scan.groups {
      let wanted = types.contains(kind: group.kind)
      guard wanted || types.contains(.library) else { continue }
      // A still and a movie with one base name are one asset only when their contents
      // confirm it, as in a listing; so the candidates (and only they) are read here.
      let counts: [AssetType: Int]
      if LivePhotoPairing.candidates(in: group.files).isEmpty {
        counts = self.counts(of: group.files, filter: .all)
      } else {
        counts = try await GroupQueue.prepare(
          group: group, filter: .all, fileSelection: { _ in true }, root: root, index: index,
          width: options.maximumConcurrency
        ).typeCounts
      }
      if wanted { groups.append(AssetGroup(kind: group.kind, path: group.path, counts: counts)) }
      everything.merge(counts, uniquingKeysWith: +)
    }
    if types.contains(.library) {
      groups.append(AssetGroup(kind: .library, path: .root, counts: everything))
    }
    // The walk was complete, so only rows of files that are gone can be dropped.
    await closeIndex(index, scan: scan)
    IndexObserver.recordClosing(index, warnings: warnings)
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
    let contents = try await run(
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
    try await run(filter: filter, progress: progress)
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
    try await scanCancellable().1.otherFiles
  }

  /// Finds the asset an `assets-library://asset/…` URL names.
  ///
  /// - Parameter url: An asset URL from ``Asset/url``.
  /// - Returns: The asset, or `nil` when no file of the library has that identifier.
  /// - Throws: ``LibraryError`` for a library-level fault.
  public func asset(for url: URL) async throws(LibraryError) -> Asset? {
    guard let id = AssetsLibrary.assetIdentifier(in: url) else { return nil }
    let contents = try await run(
      filter: .all,
      fileSelection: { StableIdentifier.uuid(namespace: "asset", path: $0.path) == id },
      progress: { _, _ in })
    return contents.assets.first
  }

  /// The group an `assets-library://group/?id=…` URL names
  /// (`groupForURL:resultBlock:failureBlock:`).
  ///
  /// - Parameter url: A group URL from ``AssetGroup/url``.
  /// - Returns: The group, or `nil` when the library has no such group.
  /// - Throws: ``LibraryError`` for a library-level fault.
  public func group(for url: URL) async throws(LibraryError) -> AssetGroup? {
    guard let id = AssetsLibrary.identifier(in: url, host: "group") else { return nil }
    return try await groups(types: [.savedPhotos, .album, .library]).first { $0.id == id }
  }

  /// The `id` query item of an `assets-library://asset/…` URL.
  static func assetIdentifier(in url: URL) -> UUID? {
    identifier(in: url, host: "asset")
  }

  /// The `id` query item of an `assets-library://<host>/…` URL (`asset` or `group`).
  static func identifier(in url: URL, host: String) -> UUID? {
    guard url.scheme == "assets-library", url.host == host,
      let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
      let value = items.first(where: { $0.name == "id" })?.value
    else { return nil }
    return UUID(uuidString: value)
  }
}
