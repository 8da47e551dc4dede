import Glibc

/// A pthread mutex with a condition variable: a lock whose waiters sleep until another
/// thread broadcasts, and whose ordering ThreadSanitizer sees.
package final class ConditionLock: Sendable {
  // Both are allocated and initialised once here, never moved, and destroyed in deinit;
  // every other use goes through the pthread functions, which are made to be called
  // from many threads at once. That is what makes sharing the pointers safe.
  private nonisolated(unsafe) let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private nonisolated(unsafe) let condition: UnsafeMutablePointer<pthread_cond_t>

  /// Creates an unlocked lock.
  package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Takes the lock, waiting for it. The corresponding C function is `pthread_mutex_lock`.
  package func lock() { pthread_mutex_lock(mutex) }

  /// Lets go of the lock. The corresponding C function is `pthread_mutex_unlock`.
  package func unlock() { pthread_mutex_unlock(mutex) }

  /// With the lock held: lets go of it until a broadcast (or a spurious wake-up), then
  /// holds it again. The corresponding C function is `pthread_cond_wait`.
  package func wait() { pthread_cond_wait(condition, mutex) }

  /// Wakes one thread waiting, if any. The corresponding C function is
  /// `pthread_cond_signal`.
  package func signal() { pthread_cond_signal(condition) }

  /// Wakes every thread waiting. The corresponding C function is `pthread_cond_broadcast`.
  package func broadcast() { pthread_cond_broadcast(condition) }
}
