import Dispatch
import Glibc

/// Work on a thread of its own, outside Dispatch's pool.
///
/// The global queues run as many blocks at once as there are cores; work that must not
/// wait for a free core (a watchdog, a helper past the cores' count) gets a detached
/// POSIX thread with the system's default stack.
package enum SpawnedThread {
  /// Runs `body` on a new detached thread, or on a global queue when the system refuses
  /// a thread (`EAGAIN`: the process is at its thread limit), so that `body` always runs.
  /// The thread lets go of `body` before it ends. The corresponding C function is
  /// `pthread_create`.
  package static func run(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(Body(body))
    var thread: pthread_t = 0
    // Initialised by pthread_attr_init, not by Swift (which sees no initialiser for it).
    let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
    pthread_attr_init(attributes)
    defer {
      pthread_attr_destroy(attributes)
      attributes.deallocate()
    }
    pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
    let error = pthread_create(
      &thread, attributes,
      { context in
        guard let context else { return nil }
        Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        return nil
      }, box.toOpaque())
    guard error != 0 else { return }
    box.release()
    DispatchQueue.global(qos: .userInitiated).async(execute: body)
  }

  /// The closure a new thread runs, carried through `pthread_create`'s context pointer.
  private final class Body: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }
}
