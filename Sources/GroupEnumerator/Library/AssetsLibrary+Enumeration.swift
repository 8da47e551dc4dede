import Foundation
import Synchronization

extension AssetsLibrary {
  /// The root as a file system path.
  var rootPath: String { root.path }

  /// Opens the root and walks the library on a global queue, off the caller's actor.
  ///
  /// - Returns: The open root (files are later opened beneath it) and what the walk found.
  func scan(
    cancellation: CancellationFlag, scope: WalkScope? = nil
  ) async throws(LibraryError) -> (LibraryRoot, LibraryScan) {
    let scanner = LibraryScanner(root: rootPath, options: options)
    let path = rootPath
    let verifiesFileEnds = options.verifiesFileEnds
    let result: Result<(LibraryRoot, LibraryScan), LibraryError> = await withCheckedContinuation {
      continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        do throws(LibraryError) {
          let root = try LibraryRoot(path: path, verifiesFileEnds: verifiesFileEnds)
          let scan = try scanner.scan(
            in: root, scope: scope, isCancelled: { cancellation.isSet })
          // `consume`: this thread must not hold the root after resuming, or a run that
          // ends soon after (cancelled) could return while the root is still open.
          continuation.resume(returning: .success((consume root, scan)))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }

  /// Opens the root and walks the library on a global queue, opening the index
  /// ``LibraryOptions/index`` names meanwhile on another (it reads every stored row, which
  /// takes about as long as the walk).
  ///
  /// - Parameter scope: The folders to list, `nil` for all. A walk of some folders opens
  ///   the index for lookups of single files, so that closing it drops no row.
  /// - Returns: The open root, what the walk found, and the index (`nil` without one, or
  ///   when it cannot be used) with the warnings opening it gave.
  func scanAndOpenIndex(
    cancellation: CancellationFlag, scope: WalkScope? = nil
  ) async throws(LibraryError) -> (LibraryRoot, LibraryScan, IndexStore?, [String]) {
    let location = options.index
    guard location != .none else {
      let (root, scan) = try await scan(cancellation: cancellation, scope: scope)
      return (root, scan, nil, [])
    }
    let environment = IndexLocation.environment
    let scanner = LibraryScanner(root: rootPath, options: options)
    let path = rootPath
    let verifiesFileEnds = options.verifiesFileEnds
    let result: Result<(LibraryRoot, LibraryScan, IndexStore?, [String]), LibraryError> =
      await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
          let root: LibraryRoot
          do throws(LibraryError) {
            root = try LibraryRoot(path: path, verifiesFileEnds: verifiesFileEnds)
          } catch {
            return continuation.resume(returning: .failure(error))
          }
          let opening = OpeningIndex()
          let group = DispatchGroup()
          DispatchQueue.global(qos: .userInitiated).async(group: group) {
            opening.result.withLock {
              $0 = IndexStore.open(
                location, root: root, environment: environment,
                loadsEverything: scope == nil)
            }
          }
          let scanned = Result { () throws(LibraryError) in
            try scanner.scan(in: root, scope: scope, isCancelled: { cancellation.isSet })
          }
          group.wait()
          let (index, warnings) = opening.result.withLock { $0 }
          switch scanned {
          case .success(let scan):
            // `consume`: this thread must not hold the root after resuming (see `scan`).
            continuation.resume(returning: .success((consume root, scan, index, warnings)))
          case .failure(let error):
            continuation.resume(returning: .failure(error))
          }
        }
      }
    return try result.get()
  }

  /// The core of every enumeration: scan, select, count, read in parallel, report.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - groupSelection: Which scanned groups to read (all by default).
  ///   - fileSelection: Which files of those groups to read (all by default).
  ///   - scope: The folders to list (`nil`: the whole library); only their groups are
  ///     read and returned.
  ///   - progress: The caller's progress closure.
  func run(
    filter: AssetFilter,
    groupSelection: @escaping @Sendable (ScannedGroup) -> Bool = { _ in true },
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool = { _ in true },
    scope: WalkScope? = nil,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> Contents {
    let cancellation = CancellationFlag()
    let outcome: Result<Contents, LibraryError> = await withTaskCancellationHandler {
      do throws(LibraryError) {
        return .success(
          try await runUncancelled(
            filter: filter, groupSelection: groupSelection, fileSelection: fileSelection,
            scope: scope, cancellation: cancellation, progress: progress))
      } catch {
        return .failure(error)
      }
    } onCancel: {
      cancellation.set()
    }
    return try outcome.get()
  }

  private func runUncancelled(
    filter: AssetFilter,
    groupSelection: @escaping @Sendable (ScannedGroup) -> Bool,
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool,
    scope: WalkScope?,
    cancellation: CancellationFlag,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> Contents {
    if Task.isCancelled { throw .cancelled }
    let clock = ContinuousClock()
    let start = clock.now
    let (root, scan, index, indexWarnings) = try await scanAndOpenIndex(
      cancellation: cancellation, scope: scope)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    let walked = clock.now

    let selected = scan.groups.filter(groupSelection)
    let width = options.maximumConcurrency

    // Live Photo candidates are read first, so that the total counts each confirmed
    // pair once before the first progress call.
    let plan = try await EnumerationPlan.make(
      groups: selected, filter: filter, fileSelection: fileSelection, root: root, index: index,
      width: width, cancellation: cancellation)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    let units = plan.units
    let jobs = units.compactMap(\.job)
    let total = units.count
    let reporter = await ProgressReporter(total: total, callback: progress)
    await reporter.deliver(total - jobs.count)
    let throttle = ProgressThrottle(
      reporter: reporter, total: total, alreadyCompleted: total - jobs.count)
    let results = await ParallelReader.run(
      jobs: jobs, width: width, cancellation: cancellation, throttle: throttle,
      readAhead: ReadAhead(root: root)
    ) { job in
      // The closure holds the root, so its descriptor stays open while any worker reads.
      AssetReader.read(job, root: root, index: index)
    }
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    await closeIndex(index, scan: scan)
    let read = clock.now
    var fresh = results.makeIterator()
    var assets: [Asset] = []
    assets.reserveCapacity(total)
    for unit in units {
      switch unit {
      case .read(let asset): assets.append(asset)
      case .toRead:
        guard case let asset?? = fresh.next() else { throw .cancelled }
        assets.append(asset)
      }
    }
    await reporter.finish()

    let (groups, folderProblems) = summary(of: scan, plan: plan, filter: filter)
    let taken = index?.counted.taken ?? 0
    let statistics = EnumerationStatistics(
      walk: walked - start, metadata: read - walked, delivery: clock.now - read,
      filesRead: plan.filesRead + jobs.count - taken, filesFromIndex: taken,
      mainActorHops: await reporter.hops, bytesRead: root.readTally.bytesRead,
      readCalls: root.readTally.readCalls)
    return Contents(
      groups: groups, assets: assets, otherFiles: scan.otherFiles, folderProblems: folderProblems,
      statistics: statistics, warnings: index?.warnings ?? indexWarnings)
  }

  /// Opens the index ``LibraryOptions/index`` names for the library at `root`, off the
  /// caller's actor.
  ///
  /// - Parameter loadsEverything: Whether every row is read at once (for a call that looks
  ///   up most files) or each lookup is one query (for a call that reads a few).
  /// - Returns: The index (`nil` without one, or when it cannot be used), and the warnings
  ///   opening it gave.
  func openIndex(
    root: LibraryRoot, loadsEverything: Bool = true
  ) async -> (IndexStore?, [String]) {
    let location = options.index
    guard location != .none else { return (nil, []) }
    let environment = IndexLocation.environment
    return await withCheckedContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(
          returning: IndexStore.open(
            location, root: root, environment: environment, loadsEverything: loadsEverything))
      }
    }
  }

  /// Writes what the run left to store in `index` and drops the rows of files the walk no
  /// longer found, off the caller's actor.
  func closeIndex(_ index: IndexStore?, scan: LibraryScan) async {
    guard let index else { return }
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

  /// Walks the library, stopping when the calling task is cancelled.
  ///
  /// - Throws: ``LibraryError`` for a library-level fault, or ``LibraryError/cancelled``.
  func scanCancellable(scope: WalkScope? = nil) async throws(LibraryError) -> (
    LibraryRoot, LibraryScan
  ) {
    let cancellation = CancellationFlag()
    let result: Result<(LibraryRoot, LibraryScan), LibraryError> =
      await withTaskCancellationHandler {
        do throws(LibraryError) {
          return .success(try await scan(cancellation: cancellation, scope: scope))
        } catch {
          return .failure(error)
        }
      } onCancel: {
        cancellation.set()
      }
    let walked = try result.get()
    if Task.isCancelled { throw .cancelled }
    return walked
  }

  /// The groups with their counts as `plan` lists them, and the folders the walk could
  /// not list, for the end of an enumeration.
  func summary(of scan: LibraryScan, plan: EnumerationPlan, filter: AssetFilter)
    -> (groups: [AssetGroup], folderProblems: [LibraryPath: AssetProblem])
  {
    let groups = scan.groups.map { group in
      AssetGroup(
        kind: group.kind, path: group.path,
        counts: plan.counts[group.key] ?? counts(of: group.files, filter: filter))
    }
    var folderProblems: [LibraryPath: AssetProblem] = [:]
    for entry in scan.folderProblems { folderProblems[entry.path] = entry.problem }
    return (groups, folderProblems)
  }

  /// How many assets of each type pass `filter`, counting each Live Photo candidate
  /// (by name) once.
  func counts(of files: [ScannedFile], filter: AssetFilter) -> [AssetType: Int] {
    var counts: [AssetType: Int] = [:]
    for file in files where filter.includes(file.type) { counts[file.type, default: 0] += 1 }
    let pairs = LivePhotoPairing.candidates(in: files).count
    if pairs > 0 {
      counts[.photo, default: 0] -= filter.includes(.photo) ? pairs : 0
      counts[.video, default: 0] -= filter.includes(.video) ? pairs : 0
      if filter.includes(.livePhoto) { counts[.livePhoto, default: 0] += pairs }
      counts = counts.filter { $0.value > 0 }
    }
    return counts
  }
}

/// One asset of an enumeration: read during the Live Photo pass, or still to read.
enum EnumerationUnit: Sendable {
  case read(Asset)
  case toRead(ReadJob)

  var job: ReadJob? {
    if case .toRead(let job) = self { return job }
    return nil
  }
}

/// Where the index opened beside the walk is handed back to the walking thread.
private final class OpeningIndex: Sendable {
  let result = Mutex<(IndexStore?, [String])>((nil, []))
}
