/// A value computed on a thread of its own (``SpawnedThread``), started at once, for work
/// that can go on while the caller does something else: ``value()`` waits for it.
///
/// Nobody has to ask for the value: when the caller no longer needs it, the thread still
/// runs to the end and then lets go of what it made.
package final class ThreadResult<Value: Sendable>: Sendable {
  private let lock = ConditionLock()
  // Written once, by the thread, with `lock` held, and `isDone` set with it; read only with
  // `lock` held after `isDone` was seen set. The lock orders every access, which is what
  // makes sharing them safe.
  private nonisolated(unsafe) var result: Value?
  private nonisolated(unsafe) var isDone = false

  /// Starts `body` on a new thread.
  package init(_ body: @escaping @Sendable () -> Value) {
    SpawnedThread.run { [self] in
      let made = body()
      lock.lock()
      result = made
      isDone = true
      lock.broadcast()
      lock.unlock()
    }
  }

  /// What the thread made, waiting for it to finish.
  package func value() -> Value {
    lock.lock()
    defer { lock.unlock() }
    while true {
      // Set together with `isDone`, by the thread.
      if isDone, let result { return result }
      lock.wait()
    }
  }
}
