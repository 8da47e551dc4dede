import Foundation
import Synchronization

extension AssetsLibrary {
  /// What a streamed enumeration found besides the assets it delivered.
  public struct StreamSummary: Sendable {
    /// The groups, Camera Roll first, then albums by path.
    public let groups: [AssetGroup]
    /// Folders that could not be listed, with the reason; their files were not delivered.
    public let folderProblems: [LibraryPath: AssetProblem]
    /// The files that are not assets, by path, with their reasons (see
    /// ``Contents/otherFiles``). The walk found them before the first asset was read, so
    /// they cost no memory beyond the file list every enumeration holds.
    public let otherFiles: [OtherFile]
    /// How many assets were delivered.
    public let assetCount: Int
    /// How long each phase took; `delivery` includes the time the delivery closure took.
    public let statistics: EnumerationStatistics
    /// What went wrong beside the library that did not change what was delivered (an
    /// index that was rebuilt or could not be used), each a sentence for people.
    public let warnings: [String]
  }

  /// Reads every asset that passes `filter` and hands each to `deliver` in the order of
  /// ``enumerate(filter:progress:)`` — group order, then file name — as soon as it and
  /// every asset before it are read, without keeping them.
  ///
  /// `prepare` turns each asset into what `deliver` needs (formatted text, say) on the
  /// worker that read it, so that this work runs in parallel too.
  ///
  /// Memory stays bounded whatever the library's size: at most ``streamWindow`` assets are
  /// read ahead of the one being delivered. Files that are not assets are not delivered:
  /// they come back in the summary's ``StreamSummary/otherFiles``, to be listed after the
  /// assets.
  ///
  /// - Parameters:
  ///   - filter: Which assets to include.
  ///   - progress: Called on the main actor with `(current, total)`, as for
  ///     ``enumerate(filter:progress:)``.
  ///   - prepare: Called once per asset, on the worker thread that read it, in any order.
  ///   - deliver: Called once per asset with what `prepare` made, one call at a time, in
  ///     order, on a worker thread (it may block, e.g. to write). Return `false` to stop: no further call is made
  ///     and the enumeration throws ``LibraryError/cancelled``.
  /// - Returns: The groups, the folders that could not be listed, the other files, and the
  ///   count.
  /// - Throws: ``LibraryError`` for a library-level fault, cancellation or a stop.
  public func streamAssets<Item: Sendable>(
    filter: AssetFilter = .all,
    progress: @escaping @MainActor @Sendable (_ current: Int, _ total: Int) -> Void = { _, _ in },
    prepare: @escaping @Sendable (Asset) -> Item,
    deliver: @escaping @Sendable (Item) -> Bool
  ) async throws(LibraryError) -> StreamSummary {
    let cancellation = CancellationFlag()
    let outcome: Result<StreamSummary, LibraryError> = await withTaskCancellationHandler {
      do throws(LibraryError) {
        return .success(
          try await streamUncancelled(
            filter: filter, cancellation: cancellation, progress: progress, prepare: prepare,
            deliver: deliver))
      } catch {
        return .failure(error)
      }
    } onCancel: {
      cancellation.set()
    }
    return try outcome.get()
  }

  /// How many assets ``streamAssets(filter:progress:prepare:deliver:)`` reads ahead of
  /// delivery.
  public static let streamWindow = 1024

  private func streamUncancelled<Item: Sendable>(
    filter: AssetFilter, cancellation: CancellationFlag,
    progress: @escaping @MainActor @Sendable (Int, Int) -> Void,
    prepare: @escaping @Sendable (Asset) -> Item,
    deliver: @escaping @Sendable (Item) -> Bool
  ) async throws(LibraryError) -> StreamSummary {
    if Task.isCancelled { throw .cancelled }
    let clock = ContinuousClock()
    let start = clock.now
    let (root, scan, index, indexWarnings) = try await scanAndOpenIndex(
      cancellation: cancellation)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    let walked = clock.now
    let width = options.maximumConcurrency
    let plan = try await EnumerationPlan.make(
      groups: scan.groups, filter: filter, fileSelection: { _ in true }, root: root,
      index: index, width: width, cancellation: cancellation)
    if cancellation.isSet || Task.isCancelled { throw .cancelled }
    let units = plan.units
    let toRead = units.count { $0.job != nil }
    let total = units.count
    let reporter = await ProgressReporter(total: total, callback: progress)
    await reporter.deliver(total - toRead)
    let throttle = ProgressThrottle(
      reporter: reporter, total: total, alreadyCompleted: total - toRead)
    let delivered = await OrderedReader.run(
      units: units, width: options.maximumConcurrency, window: AssetsLibrary.streamWindow,
      cancellation: cancellation, throttle: throttle, readAhead: ReadAhead(root: root),
      // The closure holds the root, so its descriptor stays open while any worker reads.
      read: { job in AssetReader.read(job, root: root, index: index) },
      // The reader takes the items as `any Sendable`, so that its code is compiled for
      // one type: this function is generic and public, so another module's call runs it
      // unspecialised, and the reader's state (a dictionary of `Item`s under a lock) then
      // looked up generic metadata several times per asset (~3 % of the Demo's CPU time).
      prepare: { asset in prepare(asset) },
      deliver: { item in
        // Every item was made by `prepare` above, so the cast cannot fail; if it did,
        // stopping (a cancelled run) is still better than a trap.
        guard let item = item as? Item else { return false }
        return deliver(item)
      })
    if cancellation.isSet || Task.isCancelled || delivered < total { throw .cancelled }
    await closeIndex(index, scan: scan)
    let read = clock.now
    await reporter.finish()
    let (groups, folderProblems) = summary(of: scan, plan: plan, filter: filter)
    // Reading and delivery overlap here, so the metadata phase includes the delivery.
    let taken = index?.counted.taken ?? 0
    let statistics = EnumerationStatistics(
      walk: walked - start, metadata: read - walked, delivery: clock.now - read,
      filesRead: plan.filesRead + toRead - taken, filesFromIndex: taken,
      mainActorHops: await reporter.hops, bytesRead: root.readTally.bytesRead,
      readCalls: root.readTally.readCalls)
    return StreamSummary(
      groups: groups, folderProblems: folderProblems, otherFiles: scan.otherFiles,
      assetCount: delivered, statistics: statistics, warnings: index?.warnings ?? indexWarnings)
  }
}

/// Reads units on the global dispatch queue with a fixed number of workers and delivers
/// the assets in unit order as soon as each prefix is complete, holding at most `window`
/// assets that are read (or being read) but not yet delivered.
enum OrderedReader {
  /// What `prepare` makes of an asset, and `deliver` is given.
  typealias Item = any Sendable

  /// Reads and delivers every unit; stops early when cancelled or when `deliver` returns
  /// `false` (then it also sets `cancellation`).
  ///
  /// - Returns: How many assets were delivered.
  static func run(
    units: [EnumerationUnit], width: Int, window: Int, cancellation: CancellationFlag,
    throttle: ProgressThrottle?, readAhead: ReadAhead? = nil,
    read: @escaping @Sendable (ReadJob) -> Asset,
    prepare: @escaping @Sendable (Asset) -> Item, deliver: @escaping @Sendable (Item) -> Bool
  ) async -> Int {
    guard !units.isEmpty else { return 0 }
    let shared = Shared(units: units, window: window)
    let workers = max(1, min(width, units.count))
    let group = DispatchGroup()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for _ in 0..<workers {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          work(
            shared, cancellation: cancellation, throttle: throttle, read: read,
            prepare: prepare, deliver: deliver)
        }
      }
      for _ in 0..<(readAhead == nil ? 0 : ReadAhead.threads) {
        guard let readAhead else { break }
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          readAhead.run(
            count: units.count, job: { units[$0].job },
            taken: { shared.next.load(ordering: .relaxed) }, cancellation: cancellation)
        }
      }
      group.notify(queue: .global()) { continuation.resume() }
    }
    return shared.withState { $0.nextToDeliver }
  }

  /// One worker: take the next unit when there is room, read it, deliver what is ready.
  private static func work(
    _ shared: Shared, cancellation: CancellationFlag, throttle: ProgressThrottle?,
    read: (ReadJob) -> Asset, prepare: (Asset) -> Item, deliver: (Item) -> Bool
  ) {
    while !cancellation.isSet {
      // Polls so that a cancelled run's workers never wait for room that will not come.
      while shared.room.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
        if cancellation.isSet { return }
      }
      let index = shared.next.add(1, ordering: .relaxed).oldValue
      guard index < shared.units.count else {
        shared.room.signal()
        return
      }
      let asset: Asset
      switch shared.units[index] {
      case .read(let ready): asset = ready
      case .toRead(let job):
        asset = read(job)
        throttle?.completed(shared.readCount.add(1, ordering: .acquiringAndReleasing).newValue)
      }
      let item = prepare(asset)
      shared.withState { $0.ready[index] = item }
      drain(shared, cancellation: cancellation, deliver: deliver)
    }
  }

  /// Delivers the ready prefix, unless another worker is delivering already (it will pick
  /// up what this one stored: it looks again after it clears its flag).
  private static func drain(
    _ shared: Shared, cancellation: CancellationFlag, deliver: (Item) -> Bool
  ) {
    while true {
      let batch: [Item]? = shared.withState { state in
        guard !state.isDelivering, state.ready[state.nextToDeliver] != nil else { return nil }
        state.isDelivering = true
        var batch: [Item] = []
        var index = state.nextToDeliver
        while let item = state.ready.removeValue(forKey: index) {
          batch.append(item)
          index += 1
        }
        return batch
      }
      guard let batch else { return }
      var delivered = 0
      for item in batch {
        guard !cancellation.isSet else { break }
        guard deliver(item) else {
          cancellation.set()
          break
        }
        delivered += 1
        shared.room.signal()
      }
      shared.withState { state in
        state.nextToDeliver += delivered
        state.isDelivering = false
      }
      if delivered < batch.count { return }
    }
  }

  /// What the workers share; every stored property is itself thread-safe.
  private final class Shared: Sendable {
    struct State {
      var ready: [Int: Item] = [:]
      var nextToDeliver = 0
      var isDelivering = false
    }

    let units: [EnumerationUnit]
    private let state = SanitizerVisibleMutex(State())
    let next = Atomic<Int>(0)
    let readCount = Atomic<Int>(0)
    /// Counts the units that may still be taken before the oldest undelivered one is
    /// delivered.
    let room: DispatchSemaphore

    /// Runs `body` on the state under the lock.
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
      state.withLock { body(&$0) }
    }

    init(units: [EnumerationUnit], window: Int) {
      self.units = units
      // Created at 0 and raised: libdispatch traps when a semaphore is freed below its
      // initial value, which a cancelled run (slots taken, never given back) would be.
      self.room = DispatchSemaphore(value: 0)
      for _ in 0..<max(1, window) { room.signal() }
    }
  }
}
