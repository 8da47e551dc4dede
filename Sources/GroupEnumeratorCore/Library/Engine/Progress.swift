import Dispatch
import Synchronization

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
