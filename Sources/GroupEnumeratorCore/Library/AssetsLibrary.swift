public import FoundationEssentials

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

  /// The root as a file system path.
  var rootPath: String { root.path }
}
