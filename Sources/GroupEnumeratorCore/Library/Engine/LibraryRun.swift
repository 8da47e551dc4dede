import Dispatch
import FoundationEssentials
import Synchronization

/// One run of the engine over a library: every call that reads the library is one.
///
/// A run goes through three steps, each its own method, so that each public call is a few
/// lines that pick a delivery:
///
/// 1. **Plan.** ``start(_:scope:index:)`` opens the root, walks the library and (beside the
///    walk, on another thread) opens the index ``LibraryOptions/index`` names;
///    ``plan(groups:filter:fileSelection:)`` then reads the Live Photo candidates, so that
///    a confirmed pair is one asset before anything is counted.
/// 2. **Read**, with one of three deliveries: ``collect(_:progress:)`` holds every asset
///    until the end (the listing);
///    ``deliverInOrder(_:window:progress:prepare:deliver:)`` hands each over in order
///    within a window (the streamed listing); ``queue(for:filter:fileSelection:)`` and
///    ``nextBatch(of:size:)`` read a group a batch at a time (the batched stream, the
///    path lookup, the group list, the watch).
/// 3. **Finish.** ``finish()`` stores what is left in the index and drops the rows of files
///    that are gone; ``groups(_:filter:)``, ``folderProblems`` and ``warnings`` give what the
///    call returns beside the assets, and the deliveries that report progress return the
///    ``EnumerationStatistics`` (the clock started before the walk, the root counts the
///    bytes read).
///
/// The run owns the cancellation: every step runs through its ``cancellation`` flag
/// (``CancellationFlag/cancelling(isolation:_:)``), which the calling task's cancellation
/// sets and every worker polls, and a cancelled step throws ``LibraryError/cancelled``. A
/// run that throws leaves the index unfinished: what was stored so far is kept, and no
/// row is dropped.
///
/// The run holds the open root: files are opened beneath its descriptor, which stays open
/// while any copy of the run (or a worker's closure) holds it.
struct LibraryRun: Sendable {
  /// When a run opens the index ``LibraryOptions/index`` names.
  enum IndexOpening: Sendable {
    /// During the walk, every row read at once: for a call that reads most files.
    case everything
    /// During the walk, each lookup one query: for a walk of some folders, whose closing
    /// then drops no row of the others.
    case lookups
    /// Not during the walk: ``openingIndex()`` opens it for lookups once a file is to be
    /// read (a call that may read nothing never opens it).
    case later
  }

  /// What the walk includes and how many files are read at once.
  let options: LibraryOptions
  /// The open root: every file is opened beneath it.
  let root: LibraryRoot
  /// What the walk found.
  let scan: LibraryScan
  /// The index, or `nil` without one (or when it could not be used, or is not open yet).
  private(set) var index: IndexStore?
  /// The warnings opening the index gave (when it could not be used).
  private(set) var indexWarnings: [String]
  /// Set when the calling task is cancelled or a delivery is told to stop.
  private(set) var cancellation: CancellationFlag
  /// When the run started, and when the walk ended.
  private let started: ContinuousClock.Instant
  private let walked: ContinuousClock.Instant

  /// How many files are read at once.
  var width: Int { options.maximumConcurrency }

  /// Starts a run: opens the root and walks the library on a global queue, off the
  /// caller's actor, opening the index meanwhile on another when `index` says so.
  ///
  /// - Parameters:
  ///   - library: The library to read.
  ///   - scope: The folders to list, `nil` for all.
  ///   - index: When the index is opened.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  static func start(
    _ library: AssetsLibrary, scope: WalkScope? = nil, index: IndexOpening
  ) async throws(LibraryError) -> LibraryRun {
    let options = library.options
    let started = ContinuousClock.now
    DescriptorReserve.refresh()
    let cancellation = CancellationFlag()
    let loadsEverything: Bool? =
      switch index {
      case .everything: true
      case .lookups: false
      case .later: nil
      }
    let walk = try await cancellation.cancelling { () async throws(LibraryError) -> Walk in
      try await walkAndOpenIndex(
        path: library.rootPath, options: options, scope: scope,
        loadsEverything: loadsEverything, cancellation: cancellation)
    }
    return LibraryRun(
      options: options, root: walk.root, scan: walk.scan, index: walk.index,
      indexWarnings: walk.warnings, cancellation: cancellation, started: started,
      walked: ContinuousClock.now)
  }

  /// This run with the index opened for lookups of single files (each lookup one query),
  /// off the caller's actor; the run itself when there is no index or it is open already.
  func openingIndex() async -> LibraryRun {
    let location = options.index
    guard location != .none, index == nil, indexWarnings.isEmpty else { return self }
    let environment = IndexLocation.environment
    let root = root
    let (index, warnings) = await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(
          returning: IndexStore.open(
            location, root: root, environment: environment, loadsEverything: false))
      }
    }
    var run = self
    run.index = index
    run.indexWarnings = warnings
    return run
  }

  /// This run with a cancellation flag of its own, for one more call over a kept walk:
  /// a cancelled call then leaves the walk usable by the next.
  func withNewCancellation() -> LibraryRun {
    var run = self
    run.cancellation = CancellationFlag()
    return run
  }

  /// Plans `groups` (by default every group the walk found): reads the Live Photo
  /// candidates among the selected files in parallel (or takes them from the index).
  ///
  /// - Parameters:
  ///   - groups: The groups to list, in order; `nil` for all.
  ///   - filter: Which assets to include.
  ///   - fileSelection: Which files to list (see
  ///     ``EnumerationPlan/make(groups:filter:fileSelection:read:)``).
  /// - Throws: ``LibraryError/cancelled``.
  func plan(
    groups: [ScannedGroup]? = nil, filter: AssetFilter,
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool = { _ in true }
  ) async throws(LibraryError) -> EnumerationPlan {
    try await EnumerationPlan.make(
      groups: groups ?? scan.groups, filter: filter, fileSelection: fileSelection
    ) { jobs throws(LibraryError) in
      try await read(jobs)
    }
  }

  /// Reads `jobs` in parallel, `width` at once, in job order (taking those unchanged since
  /// they were stored from the index, and storing those read).
  ///
  /// - Throws: ``LibraryError/cancelled`` when the run is cancelled before every job ran.
  func read(_ jobs: [ReadJob]) async throws(LibraryError) -> [Asset] {
    guard !jobs.isEmpty else { return [] }
    try cancellation.check()
    IndexObserver.recordJobs(jobs.count)
    let root = root
    let index = index
    let results = try await cancellation.cancelling {
      () async throws(LibraryError) -> [Asset?] in
      await ParallelReader.run(
        jobs: jobs, width: width, cancellation: cancellation, throttle: nil
      ) {
        // The closure holds the root, so its descriptor stays open while any worker reads.
        AssetReader.reader(root: root, index: index)
      }
    }
    var assets: [Asset] = []
    assets.reserveCapacity(results.count)
    for case let asset? in results { assets.append(asset) }
    guard assets.count == jobs.count else { throw .cancelled }
    return assets
  }

  /// Ends the run once every file it was to read is read: stores what is left in the
  /// index and drops the rows of files the walk no longer found (off the caller's actor).
  ///
  /// A walk of some folders opens the index for lookups (``IndexOpening/lookups``), which
  /// drops no row.
  func finish() async {
    defer { IndexObserver.recordClosing(index, warnings: indexWarnings) }
    guard let index else { return }
    let scan = scan
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global(qos: .userInitiated).async {
        index.finish {
          var present = Set<[UInt8]>()
          for group in scan.groups { for file in group.files { present.insert(file.path.bytes) } }
          return present
        }
        continuation.resume()
      }
    }
  }

  /// The groups with their counts as `plan` lists them (a group it did not plan counts
  /// its files by name), in the walk's order.
  func groups(_ plan: EnumerationPlan, filter: AssetFilter) -> [AssetGroup] {
    scan.groups.map { group in
      AssetGroup(
        kind: group.kind, path: group.path,
        counts: plan.counts[group.key] ?? EnumerationPlan.counts(of: group.files, filter: filter))
    }
  }

  /// The folders the walk could not list, with the reason.
  var folderProblems: [LibraryPath: AssetProblem] {
    var problems: [LibraryPath: AssetProblem] = [:]
    for entry in scan.folderProblems { problems[entry.path] = entry.problem }
    return problems
  }

  /// What went wrong with the index beside the library, each a sentence for people;
  /// nothing for an index kept quietly (``LibraryOptions/keepsIndexQuietly``).
  var warnings: [String] {
    options.keepsIndexQuietly ? [] : index?.warnings ?? indexWarnings
  }

  /// The statistics of a delivery whose reading ended at `readEnd` (when the index was
  /// closed), after the last progress call.
  ///
  /// - Parameter toRead: How many files the delivery handed to the reader (besides the
  ///   candidates the plan read).
  func statistics(
    _ plan: EnumerationPlan, toRead: Int, readEnd: ContinuousClock.Instant,
    reporter: ProgressReporter
  ) async -> EnumerationStatistics {
    let taken = index?.counted.taken ?? 0
    return EnumerationStatistics(
      walk: walked - started, metadata: readEnd - walked, delivery: ContinuousClock.now - readEnd,
      filesRead: plan.filesRead + toRead - taken, filesFromIndex: taken,
      mainActorHops: await reporter.hops, bytesRead: root.readTally.bytesRead,
      readCalls: root.readTally.readCalls)
  }

  /// What ``walkAndOpenIndex(path:options:scope:loadsEverything:cancellation:)`` found.
  private struct Walk: Sendable {
    var root: LibraryRoot
    var scan: LibraryScan
    var index: IndexStore?
    var warnings: [String]
  }

  /// Opens the root and walks the library on a global queue; with `loadsEverything`, opens
  /// the index meanwhile on another (reading every stored row takes about as long as the
  /// walk).
  private static func walkAndOpenIndex(
    path: String, options: LibraryOptions, scope: WalkScope?, loadsEverything: Bool?,
    cancellation: CancellationFlag
  ) async throws(LibraryError) -> Walk {
    let scanner = LibraryScanner(root: path, options: options)
    let location = options.index
    let environment = IndexLocation.environment
    let result: Result<Walk, LibraryError> = await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        let root: LibraryRoot
        do throws(LibraryError) {
          root = try LibraryRoot(path: path, verifiesFileEnds: options.verifiesFileEnds)
        } catch {
          return continuation.resume(returning: .failure(error))
        }
        let opening = OpeningIndex()
        let group = DispatchGroup()
        if let loadsEverything, location != .none {
          DispatchQueue.global(qos: .userInitiated).async(group: group) {
            opening.result.withLock {
              $0 = IndexStore.open(
                location, root: root, environment: environment,
                loadsEverything: loadsEverything)
            }
          }
        }
        let scanned = Result { () throws(LibraryError) in
          try scanner.scan(in: root, scope: scope, isCancelled: { cancellation.isSet })
        }
        group.wait()
        let (index, warnings) = opening.result.withLock { $0 }
        switch scanned {
        case .success(let scan):
          // `consume`: this thread must not hold the root after resuming, or a run that
          // ends soon after (cancelled) could return while the root is still open.
          continuation.resume(
            returning: .success(
              Walk(root: consume root, scan: scan, index: index, warnings: warnings)))
        case .failure(let error):
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }
}

/// Where the index opened beside the walk is handed back to the walking thread.
private final class OpeningIndex: Sendable {
  let result = Mutex<(IndexStore?, [String])>((nil, []))
}
