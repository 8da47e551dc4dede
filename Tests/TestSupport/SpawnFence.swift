import Synchronization

/// Keeps the tests' own writable descriptors out of the children the tests start.
///
/// Starting a child (`Process.run()`) copies this process's descriptor table; the child
/// closes what it inherited only on its way to `exec`, and the kernel reports a file's
/// `IN_CLOSE_WRITE` when the last copy of its descriptor closes. A file a test had just
/// written while another test started a child could so be reported "closed after
/// writing" again, later, by the child — after a watch had started, as a change no test
/// made (seen once in CI on a machine loaded by the first build: a watch test listed a
/// folder nothing had touched). Every write a test makes through ``TemporaryFolder`` and
/// every child a test starts go through this one lock, so no child is started while
/// such a descriptor is open.
public enum SpawnFence {
  private static let lock = Mutex<Void>(())

  /// Runs `body` (an open-write-close of a test's file, or a child's start) while no
  /// other such section runs.
  public static func exclusive(_ body: () throws -> Void) throws {
    try lock.withLock { _ in try body() }
  }
}
