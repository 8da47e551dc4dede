import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// Whether the process may open enough files to run at all.
///
/// libdispatch traps (`SIGILL`) when it cannot create its event descriptors, so under a
/// tiny `ulimit -n` the Demo would crash before reading anything. Checking first turns
/// that into an error message; above the minimum, descriptors that run out while the
/// library is read become per-folder and per-asset problems instead.
enum DescriptorBudget {
  /// Descriptors the runtime and one walk need beyond those already open: libdispatch's
  /// event loop (2), the root (1), a folder being listed (1), a file being read (1), some
  /// headroom, and the last few the library never takes (``DescriptorReserve``).
  static let minimumFree = 8 + DescriptorReserve.reserve

  /// The error message when fewer than ``minimumFree`` descriptors can be opened, else
  /// `nil`. The corresponding C function is `getrlimit`.
  static func shortage() -> String? {
    var limit = rlimit()
    // `rlim_t.max` is RLIM_INFINITY.
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max
    else { return nil }
    guard let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    else { return nil }
    // The listing itself held one descriptor, already closed again.
    let inUse = open - 1
    let free = Int(clamping: limit.rlim_cur) - inUse
    guard free < minimumFree else { return nil }
    return "Error: Only \(max(0, free)) more files may be open (ulimit -n is \(limit.rlim_cur),"
      + " \(inUse) in use); the Demo needs \(minimumFree). Raise the limit with 'ulimit -n'.\n"
  }
}
