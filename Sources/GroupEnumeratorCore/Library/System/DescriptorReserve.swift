import Synchronization

#if canImport(Glibc)
  internal import Glibc
#endif

/// The last few descriptors the process may open, kept free for the runtime.
///
/// libdispatch opens a descriptor of its own once a second while work waits on a global
/// queue (`/proc/<thread>/stat`, to count the runnable workers) and ends the process with
/// `SIGILL` when that open fails. A library read under a low `ulimit -n`, or one with
/// thousands of files open in the caller, would otherwise fill the table with folders and
/// files and be killed. So every descriptor the library opens is checked: the kernel
/// gives the lowest free number, so a number among the last ``reserve`` below the limit
/// means at most that many are left; such a descriptor is closed again at once and the
/// open fails with `EMFILE`, which the callers report as a passing problem (see
/// ``AssetProblem/isPassing``) like the kernel's own.
package enum DescriptorReserve {
  /// How many descriptors below the soft limit are left to the runtime.
  package static let reserve = 4

  /// The first descriptor number the library does not keep (`Int32.max`: no limit).
  private static let ceiling = Atomic<Int32>(computeCeiling())

  /// Reads the soft limit again (the program may have raised or lowered it since the
  /// last run). Cheap: one `getrlimit`.
  ///
  /// The corresponding C function is `getrlimit`.
  package static func refresh() {
    ceiling.store(computeCeiling(), ordering: .relaxed)
  }

  private static func computeCeiling() -> Int32 {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
      limit.rlim_cur < rlim_t(Int32.max)
    else { return Int32.max }
    return Int32(limit.rlim_cur) - Int32(reserve)
  }

  /// `descriptor` when the process keeps enough free beside it; else closes it, sets
  /// `errno` to `EMFILE` and returns -1, as a failed `open` does.
  ///
  /// The corresponding C function is `close`.
  package static func admit(_ descriptor: Int32) -> Int32 {
    admit(descriptor, below: ceiling.load(ordering: .relaxed))
  }

  /// ``admit(_:)`` with the first number not kept given. A failed open's -1 is passed on
  /// with its `errno`, whatever the ceiling (under a limit below the reserve it is
  /// negative).
  static func admit(_ descriptor: Int32, below ceiling: Int32) -> Int32 {
    guard descriptor >= 0, descriptor >= ceiling else { return descriptor }
    _ = Glibc.close(descriptor)
    errno = EMFILE
    return -1
  }
}
