import Synchronization

/// A `Mutex` whose ordering ThreadSanitizer can see.
///
/// `Synchronization.Mutex` takes its lock through futex calls and uninstrumented atomics
/// that ThreadSanitizer does not see on Linux, so to it two threads' critical sections
/// look unordered and race (a two-thread repro reports one). An acquire-release step on an
/// atomic at the start and the end of every section (one uncontended read-modify-write
/// each) makes the order the lock gives them visible to it: a section's start reads what
/// the previous one's end wrote.
struct SanitizerVisibleMutex<Value: ~Copyable>: ~Copyable, Sendable {
  private let mutex: Mutex<Value>
  private let order = Atomic<Int>(0)

  /// Creates a lock around `value`.
  init(_ value: consuming sending Value) { mutex = Mutex(value) }

  /// Runs `body` on the value under the lock.
  borrowing func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      order.add(1, ordering: .acquiringAndReleasing)
      defer { order.add(1, ordering: .acquiringAndReleasing) }
      return try body(&value)
    }
  }
}
