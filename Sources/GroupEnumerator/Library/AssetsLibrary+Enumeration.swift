import Foundation

extension AssetsLibrary {
  /// The root as a file system path.
  var rootPath: String { root.path }

  /// Opens the root and walks the library on a global queue, off the caller's actor.
  ///
  /// - Returns: The open root (files are later opened beneath it) and what the walk found.
  func scan(cancellation: CancellationFlag) async throws(LibraryError) -> (LibraryRoot, LibraryScan)
  {
    let scanner = LibraryScanner(root: rootPath, options: options)
    let path = rootPath
    let result: Result<(LibraryRoot, LibraryScan), LibraryError> = await withCheckedContinuation {
      continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        do throws(LibraryError) {
          let root = try LibraryRoot(path: path)
          let scan = try scanner.scan(in: root, isCancelled: { cancellation.isSet })
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

  /// The core of every enumeration: scan, select, count, read in parallel, report.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - groupSelection: Which scanned groups to read (all by default).
  ///   - fileSelection: Which files of those groups to read (all by default).
  ///   - progress: The caller's progress closure.
  func run(
    filter: AssetFilter,
    groupSelection: @escaping @Sendable (ScannedGroup) -> Bool = { _ in true },
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool = { _ in true },
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> Contents {
    let cancellation = CancellationFlag()
    let outcome: Result<Contents, LibraryError> = await withTaskCancellationHandler {
      do throws(LibraryError) {
        return .success(
          try await runUncancelled(
            filter: filter, groupSelection: groupSelection, fileSelection: fileSelection,
            cancellation: cancellation, progress: progress))
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
    cancellation: CancellationFlag,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> Contents {
    if Task.isCancelled { throw .cancelled }
    let (root, scan) = try await self.scan(cancellation: cancellation)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }

    let selected = scan.groups.filter(groupSelection)
    let jobs = selected.flatMap { group in
      group.files.filter { filter.includes($0.type) && fileSelection($0) }
        .map { ReadJob(file: $0, group: group.key) }
    }
    let rootDescriptor = root.descriptor

    let reporter = await ProgressReporter(total: jobs.count, callback: progress)
    await reporter.deliver(0)
    let throttle = ProgressThrottle(reporter: reporter, total: jobs.count)
    let results = await ParallelReader.run(
      jobs: jobs, width: options.maximumConcurrency, cancellation: cancellation,
      throttle: throttle
    ) { job in
      AssetReader.read(job, rootDescriptor: rootDescriptor)
    }
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    withExtendedLifetime(root) {}
    let assets = results.compactMap { $0 }
    guard assets.count == jobs.count else { throw .cancelled }
    await reporter.finish()

    let groups = scan.groups.map { group in
      AssetGroup(
        kind: group.kind, path: group.path, counts: counts(of: group.files, filter: filter))
    }
    var folderProblems: [LibraryPath: AssetProblem] = [:]
    for entry in scan.folderProblems { folderProblems[entry.path] = entry.problem }
    return Contents(groups: groups, assets: assets, folderProblems: folderProblems)
  }

  /// How many files of each type pass `filter`.
  func counts(of files: [ScannedFile], filter: AssetFilter) -> [AssetType: Int] {
    var counts: [AssetType: Int] = [:]
    for file in files where filter.includes(file.type) { counts[file.type, default: 0] += 1 }
    return counts
  }
}
