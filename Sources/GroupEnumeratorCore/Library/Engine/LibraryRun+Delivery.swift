import FoundationEssentials

/// The deliveries of a run: how the planned assets are read and handed over.
extension LibraryRun {
  /// Reads every file `plan` left to read, in parallel, and returns every asset in plan
  /// order, reporting progress on the main actor; the run is finished (index closed).
  ///
  /// - Returns: The assets and the statistics.
  /// - Throws: ``LibraryError/cancelled``.
  func collect(
    _ plan: EnumerationPlan, progress: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async throws(LibraryError) -> (assets: [Asset], statistics: EnumerationStatistics) {
    let units = plan.units
    let jobs = units.compactMap(\.job)
    let reporter = await startProgress(plan, toRead: jobs.count, callback: progress)
    let root = root
    let index = index
    let results = try await cancellation.cancelling {
      () async throws(LibraryError) -> [Asset?] in
      await ParallelReader.run(
        jobs: jobs, width: width, cancellation: cancellation, throttle: reporter.throttle,
        coldReaders: ColdReaders(root: root)
      ) {
        // The closure holds the root, so its descriptor stays open while any worker reads.
        AssetReader.reader(root: root, index: index)
      }
    }
    await finish()
    let readEnd = ContinuousClock.now
    var fresh = results.makeIterator()
    var assets: [Asset] = []
    assets.reserveCapacity(units.count)
    for unit in units {
      switch unit {
      case .read(let asset): assets.append(asset)
      case .toRead:
        guard case let asset?? = fresh.next() else { throw .cancelled }
        assets.append(asset)
      }
    }
    await reporter.reporter.finish()
    let statistics = await statistics(
      plan, toRead: jobs.count, readEnd: readEnd, reporter: reporter.reporter)
    return (assets, statistics)
  }

  /// Reads every file `plan` left to read, in parallel, and hands each asset to `deliver`
  /// in plan order as soon as it and every asset before it are read, holding at most
  /// `window` assets read ahead of delivery; the run is finished (index closed).
  ///
  /// - Parameters:
  ///   - prepare: Called once per asset and its place in the delivery (0 for the first),
  ///     on the worker that read it, in any order.
  ///   - deliver: Called once per asset with what `prepare` made, in order, one call at a
  ///     time; `false` stops the run.
  /// - Returns: How many assets were delivered (all of them), and the statistics.
  /// - Throws: ``LibraryError/cancelled`` when cancelled or stopped.
  func deliverInOrder(
    _ plan: EnumerationPlan, window: Int,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void,
    prepare: @escaping @Sendable (Asset, Int) -> OrderedReader.Item,
    deliver: @escaping @Sendable (OrderedReader.Item) -> Bool
  ) async throws(LibraryError) -> (delivered: Int, statistics: EnumerationStatistics) {
    let units = plan.units
    let toRead = units.count { $0.job != nil }
    let reporter = await startProgress(plan, toRead: toRead, callback: progress)
    let root = root
    let index = index
    let delivered = try await cancellation.cancelling { () async throws(LibraryError) -> Int in
      await OrderedReader.run(
        units: units, width: width, window: window, cancellation: cancellation,
        throttle: reporter.throttle, coldReaders: ColdReaders(root: root),
        // The closure holds the root, so its descriptor stays open while any worker reads.
        makeReader: { AssetReader.reader(root: root, index: index) },
        prepare: prepare, deliver: deliver)
    }
    guard delivered == units.count else { throw .cancelled }
    await finish()
    let readEnd = ContinuousClock.now
    await reporter.reporter.finish()
    // Reading and delivery overlap here, so the metadata phase includes the delivery.
    let statistics = await statistics(
      plan, toRead: toRead, readEnd: readEnd, reporter: reporter.reporter)
    return (delivered, statistics)
  }

  /// Plans one group for batched reading: its Live Photo candidates read (those among the
  /// selected files), every other selected file still to read.
  ///
  /// - Throws: ``LibraryError/cancelled``.
  func queue(
    for group: ScannedGroup, filter: AssetFilter,
    fileSelection: @escaping @Sendable (ScannedFile) -> Bool = { _ in true }
  ) async throws(LibraryError) -> GroupQueue {
    GroupQueue(plan: try await plan(groups: [group], filter: filter, fileSelection: fileSelection))
  }

  /// Reads the next `size` assets of `queue`, in parallel, in order.
  ///
  /// - Throws: ``LibraryError/cancelled``.
  func nextBatch(of queue: inout GroupQueue, size: Int) async throws(LibraryError) -> [Asset] {
    try await queue.nextBatch(size: size) { jobs throws(LibraryError) in try await read(jobs) }
  }

  /// The group of the walk that holds a file (or a sidecar) at `path`.
  func group(holding path: LibraryPath) -> ScannedGroup? {
    scan.groups.first { $0.files.contains(where: LibraryRun.holds(path)) }
  }

  /// The asset of `group` one of whose files is at `path`, or `nil`: only that file (with
  /// the other half of its Live Photo, when it may have one) is read.
  ///
  /// - Throws: ``LibraryError/cancelled``.
  func asset(at path: LibraryPath, in group: ScannedGroup) async throws(LibraryError) -> Asset? {
    var queue = try await queue(for: group, filter: .all, fileSelection: LibraryRun.holds(path))
    while !queue.isEmpty {
      let assets = try await nextBatch(of: &queue, size: 2)
      if let found = assets.first(where: { $0.resources.contains { $0.path == path } }) {
        return found
      }
    }
    return nil
  }

  /// Whether a scanned file is the one at `path`, or has its sidecar there.
  private static func holds(_ path: LibraryPath) -> @Sendable (ScannedFile) -> Bool {
    { file in file.path == path || file.sidecars.contains { $0.path == path } }
  }

  /// The progress of a delivery: the caller's closure told the total and how many assets
  /// the plan read already (before the first file is read), and the workers' throttle.
  private func startProgress(
    _ plan: EnumerationPlan, toRead: Int,
    callback: @escaping @MainActor @Sendable (Int, Int) -> Void
  ) async -> (reporter: ProgressReporter, throttle: ProgressThrottle) {
    let total = plan.units.count
    let reporter = await ProgressReporter(total: total, callback: callback)
    await reporter.deliver(total - toRead)
    let throttle = ProgressThrottle(
      reporter: reporter, total: total, alreadyCompleted: total - toRead)
    return (reporter, throttle)
  }
}
