import Dispatch
import Synchronization

/// Reads units on the global dispatch queue with a fixed number of workers (and more
/// readers once the disk is seen to be cold: ``ColdReaders``) and delivers
/// the assets in unit order as soon as each prefix is complete, holding at most `window`
/// assets that are read (or being read) but not yet delivered.
enum OrderedReader {
  /// What `prepare` makes of an asset, and `deliver` is given.
  typealias Item = any Sendable

  /// Reads and delivers every unit; stops early when cancelled or when `deliver` returns
  /// `false` (then it also sets `cancellation`). Each worker reads with a reader of its
  /// own, made by `makeReader` (which may keep state for that worker alone, such as the
  /// folder it last looked in) and dropped when the worker ends. `prepare` is given each
  /// asset with its unit's index, which is its place in the delivery (each unit delivers
  /// one asset).
  ///
  /// - Returns: How many assets were delivered.
  static func run(
    units: [EnumerationUnit], width: Int, window: Int, cancellation: CancellationFlag,
    throttle: ProgressThrottle?, coldReaders: ColdReaders? = nil,
    makeReader: @escaping @Sendable () -> (ReadJob) -> Asset,
    prepare: @escaping @Sendable (Asset, Int) -> Item,
    deliver: @escaping @Sendable (Item) -> Bool
  ) async -> Int {
    guard !units.isEmpty else { return 0 }
    let shared = Shared(units: units, window: window)
    let workers = max(1, min(width, units.count))
    let group = DispatchGroup()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for _ in 0..<workers {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          work(
            shared, cancellation: cancellation, throttle: throttle, read: makeReader(),
            prepare: prepare, deliver: deliver)
        }
      }
      coldReaders?.start(
        in: group, isDone: { shared.next.load(ordering: .relaxed) >= units.count },
        cancellation: cancellation
      ) {
        work(
          shared, cancellation: cancellation, throttle: throttle, read: makeReader(),
          prepare: prepare, deliver: deliver)
      }
      group.notify(queue: .global()) { continuation.resume() }
    }
    return shared.withState { $0.nextToDeliver }
  }

  /// One worker: take the next unit when there is room, read it, deliver what is ready.
  private static func work(
    _ shared: Shared, cancellation: CancellationFlag, throttle: ProgressThrottle?,
    read: (ReadJob) -> Asset, prepare: (Asset, Int) -> Item, deliver: (Item) -> Bool
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
      let item = prepare(asset, index)
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
