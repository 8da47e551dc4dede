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
    let clock = ContinuousClock()
    let start = clock.now
    let (root, scan) = try await self.scan(cancellation: cancellation)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    let walked = clock.now

    let selected = scan.groups.filter(groupSelection)
    let width = options.maximumConcurrency

    // Live Photo candidates are read first, so that the total counts each confirmed
    // pair once before the first progress call.
    let candidates = selected.flatMap { group in
      LivePhotoPairing.candidates(in: group.files)
        .filter { fileSelection($0.still) || fileSelection($0.video) }
        .map { (candidate: $0, group: group.key) }
    }
    let candidateJobs = candidates.flatMap { entry in
      [
        ReadJob(file: entry.candidate.still, group: entry.group),
        ReadJob(file: entry.candidate.video, group: entry.group),
      ]
    }
    let preread = await ParallelReader.run(
      jobs: candidateJobs, width: width, cancellation: cancellation, throttle: nil
    ) { job in
      // The closure holds the root, so its descriptor stays open while any worker reads.
      AssetReader.read(job, rootDescriptor: root.descriptor.rawValue)
    }
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    var readAlready: [LibraryPath: Asset] = [:]
    for case let asset? in preread { readAlready[asset.path] = asset }
    var pairedStills: [LibraryPath: Asset] = [:]
    var pairedVideos: Set<LibraryPath> = []
    for (candidate, _) in candidates {
      guard let still = readAlready[candidate.still.path],
        let video = readAlready[candidate.video.path],
        LivePhotoPairing.halvesAreWhatTheirNamesSay(still: still, video: video),
        LivePhotoPairing.confirms(still: still.metadata, video: video.metadata)
      else { continue }
      pairedStills[still.path] = LivePhotoPairing.merge(still: still, video: video)
      pairedVideos.insert(video.path)
    }

    // Every asset to report, in group order then by path: already read, or still to read.
    var units: [EnumerationUnit] = []
    units.reserveCapacity(selected.reduce(0) { $0 + $1.files.count })
    // Each selected group's counts, as listed: a confirmed pair once, as a Live Photo.
    var listedCounts: [ScannedGroup.Key: [AssetType: Int]] = [:]
    for group in selected {
      var counts: [AssetType: Int] = [:]
      for file in group.files where fileSelection(file) && !pairedVideos.contains(file.path) {
        if let pair = pairedStills[file.path] {
          if filter.includes(.livePhoto) {
            units.append(.read(pair))
            counts[.livePhoto, default: 0] += 1
          }
        } else if filter.includes(file.type) {
          units.append(
            readAlready[file.path].map(EnumerationUnit.read)
              ?? .toRead(ReadJob(file: file, group: group.key)))
          counts[file.type, default: 0] += 1
        }
      }
      listedCounts[group.key] = counts
    }
    let jobs = units.compactMap(\.job)
    let total = units.count
    let reporter = await ProgressReporter(total: total, callback: progress)
    await reporter.deliver(total - jobs.count)
    let throttle = ProgressThrottle(
      reporter: reporter, total: total, alreadyCompleted: total - jobs.count)
    let results = await ParallelReader.run(
      jobs: jobs, width: width, cancellation: cancellation, throttle: throttle
    ) { job in
      // The closure holds the root, so its descriptor stays open while any worker reads.
      AssetReader.read(job, rootDescriptor: root.descriptor.rawValue)
    }
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
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

    let groups = scan.groups.map { group in
      AssetGroup(
        kind: group.kind, path: group.path,
        counts: listedCounts[group.key] ?? counts(of: group.files, filter: filter))
    }
    var folderProblems: [LibraryPath: AssetProblem] = [:]
    for entry in scan.folderProblems { folderProblems[entry.path] = entry.problem }
    let statistics = EnumerationStatistics(
      walk: walked - start, metadata: read - walked, delivery: clock.now - read,
      filesRead: candidateJobs.count + jobs.count, mainActorHops: await reporter.hops)
    return Contents(
      groups: groups, assets: assets, folderProblems: folderProblems, statistics: statistics)
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
