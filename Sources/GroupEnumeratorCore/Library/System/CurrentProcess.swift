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

  /// The wall clock's time, in nanoseconds since 1970 (the clock file times are taken
  /// from).
  ///
  /// The corresponding C function is `clock_gettime` with `CLOCK_REALTIME`.
  static var wallClockNanoseconds: Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
  }

  /// The effective user, the effective group and the supplementary groups (sorted): whom
  /// the file system's permissions judge the process as; `nil` when they cannot be had.
  ///
  /// The corresponding C functions are `geteuid`, `getegid` and `getgroups`.
  static var credentials: (user: UInt32, group: UInt32, groups: [UInt32])? {
    let count = getgroups(0, nil)
    guard count >= 0 else { return nil }
    var groups = [gid_t](repeating: 0, count: Int(count))
    guard getgroups(count, &groups) == count else { return nil }
    return (geteuid(), getegid(), groups.sorted())
  }
}
