internal import CSystemShim

#if canImport(Glibc)
  internal import Glibc
#endif

/// The system calls about the running process itself rather than a file: its number, its
/// heap, and a pause of the calling thread.
enum CurrentProcess {
  /// The process's number.
  ///
  /// The corresponding C function is `getpid`.
  static var identifier: Int32 { getpid() }

  /// Gives the memory the allocator holds free back to the system (many small blocks
  /// freed after a large reading would otherwise stay with the process).
  ///
  /// The corresponding C function is `malloc_trim`, through `CSystemShim`.
  static func trimHeap() {
    CSystemShim_trimHeap()
  }

  /// Suspends the calling thread for about `microseconds` (at least; a signal may end the
  /// pause early, which the caller's loop absorbs).
  ///
  /// The corresponding C function is `usleep`.
  static func sleep(microseconds: UInt32) {
    _ = usleep(microseconds)
  }
}
