import Dispatch
import Foundation
import Synchronization

/// A flag that cancellation sets from any thread and workers poll.
final class CancellationFlag: Sendable {
  private let state = Atomic<Bool>(false)

  /// Whether the flag is set.
  var isSet: Bool { state.load(ordering: .acquiring) }

  /// Sets the flag.
  func set() { state.store(true, ordering: .releasing) }
}

/// Delivers progress to the caller's closure on the main actor, so that `current` only
/// grows whatever order the deliveries arrive in.
@MainActor final class ProgressReporter {
  private let total: Int
  private let callback: @MainActor @Sendable (Int, Int) -> Void
  private var delivered = -1
  /// How many times work came to the main actor for this reporter: its creation and
  /// every delivery (each is called from off the main actor).
  private(set) var hops = 1

  init(total: Int, callback: @escaping @MainActor @Sendable (Int, Int) -> Void) {
    self.total = total
    self.callback = callback
  }

  /// Calls the closure with `(current, total)` unless a later value went out already.
  func deliver(_ current: Int) {
    hops += 1
    guard current > delivered, current <= total else { return }
    delivered = current
    callback(current, total)
  }

  /// Makes sure the last call the closure saw is `(total, total)`.
  func finish() { deliver(total) }
}

/// Worker-side throttle: passes at most one progress value per interval to the main
/// actor, and always the last one.
final class ProgressThrottle: Sendable {
  private let reporter: ProgressReporter
  private let total: Int
  private let alreadyCompleted: Int
  private let intervalNanoseconds: UInt64
  private let lastSent = Atomic<UInt64>(0)

  init(
    reporter: ProgressReporter, total: Int, alreadyCompleted: Int = 0,
    interval: Duration = .milliseconds(50)
  ) {
    self.reporter = reporter
    self.total = total
    self.alreadyCompleted = alreadyCompleted
    let parts = interval.components
    self.intervalNanoseconds =
      UInt64(parts.seconds) * 1_000_000_000 + UInt64(parts.attoseconds / 1_000_000_000)
  }

  /// Notes that `done` more items are done (besides those done before the run), and
  /// forwards the total when it is time.
  func completed(_ done: Int) {
    let completed = alreadyCompleted + done
    let now = DispatchTime.now().uptimeNanoseconds
    let last = lastSent.load(ordering: .relaxed)
    guard completed == total || now &- last >= intervalNanoseconds else { return }
    guard
      lastSent.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        || completed == total
    else { return }
    let reporter = reporter
    Task { @MainActor in reporter.deliver(completed) }
  }
}

/// One file to read and where its asset belongs.
struct ReadJob: Sendable {
  var file: ScannedFile
  var group: ScannedGroup.Key
}

extension ScannedGroup {
  /// What an asset needs to know of its group.
  struct Key: Sendable, Hashable {
    var kind: AssetGroup.Kind
    var path: LibraryPath
  }

  var key: Key { Key(kind: kind, path: path) }
}

/// Reads many files on the global dispatch queue with a fixed number of workers, keeping
/// results in job order.
enum ParallelReader {
  /// Runs `read` over every job with at most `width` at once.
  ///
  /// `read` (and whatever it captures, such as the open ``LibraryRoot``) is released
  /// before this returns: no worker holds it afterwards.
  ///
  /// - Returns: One result per job, in job order; `nil` where cancellation stopped the
  ///   job before it ran.
  static func run<Output: Sendable>(
    jobs: [ReadJob], width: Int, cancellation: CancellationFlag, throttle: ProgressThrottle?,
    readAhead: ReadAhead? = nil, read: @escaping @Sendable (ReadJob) -> Output
  ) async -> [Output?] {
    let workers = max(1, min(width, jobs.count))
    let group = DispatchGroup()
    let box = Shared<Output>(jobs: jobs, read: read, readAhead: readAhead)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for _ in 0..<workers {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          // A local, released when this body returns: before the group is left, whereas
          // the block itself may be released after `notify` has run.
          guard let read = box.read.withLock({ $0 }) else { return }
          while !cancellation.isSet {
            let index = box.next.add(1, ordering: .relaxed).oldValue
            guard index < box.jobs.count else { break }
            let output = read(box.jobs[index])
            box.results.withLock { $0[index] = output }
            let done = box.completed.add(1, ordering: .acquiringAndReleasing).newValue
            throttle?.completed(done)
          }
        }
      }
      for _ in 0..<(readAhead == nil ? 0 : ReadAhead.threads) {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          // A local, as `read` above: the block itself does not hold the root.
          guard let readAhead = box.readAhead.withLock({ $0 }) else { return }
          readAhead.run(
            count: jobs.count, job: { jobs[$0] },
            taken: { box.next.load(ordering: .relaxed) }, cancellation: cancellation)
        }
      }
      group.notify(queue: .global()) {
        box.read.withLock { $0 = nil }
        box.readAhead.withLock { $0 = nil }
        continuation.resume()
      }
    }
    return box.results.withLock { $0 }
  }

  /// The state the workers share; every stored property is itself thread-safe.
  private final class Shared<Output: Sendable>: Sendable {
    let jobs: [ReadJob]
    let results: SanitizerVisibleMutex<[Output?]>
    let next = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    /// The reading closure until every worker is done; then `nil`.
    let read: SanitizerVisibleMutex<(@Sendable (ReadJob) -> Output)?>
    /// The read-ahead (which holds the root) until every worker is done; then `nil`.
    let readAhead: SanitizerVisibleMutex<ReadAhead?>

    init(
      jobs: [ReadJob], read: @escaping @Sendable (ReadJob) -> Output, readAhead: ReadAhead?
    ) {
      self.jobs = jobs
      self.results = SanitizerVisibleMutex(Array(repeating: nil, count: jobs.count))
      self.read = SanitizerVisibleMutex(read)
      self.readAhead = SanitizerVisibleMutex(readAhead)
    }
  }
}
