import Foundation

/// Keeps reads in flight on a cold disk: while the workers read one file each, the kernel
/// is asked to start reading the first bytes of the files ``depth`` places ahead of them
/// (`posix_fadvise(POSIX_FADV_WILLNEED)`), so that the disk works on many reads at once
/// instead of one per worker. I/O concurrency apart from CPU concurrency: the workers stay
/// as many as the cores, and the order of the output and what is held in memory do not
/// change.
///
/// It pays only when the reads come from the disk: with the page cache warm, the extra
/// open and close per file would cost time for nothing. So it starts only once the root's
/// ``ReadTally`` has seen the reads come slowly (``ReadTally/isCold``). Each advice opens
/// the file beneath the root as every read does (no link followed) and closes it at
/// once, so at most one descriptor per worker is added.
struct ReadAhead: Sendable {
  /// How many files ahead of the one a worker takes the next advice goes: 16 (the cold
  /// bench measured 4, 8, 16 and 32 alike within its noise, against none: docs/Performance.md).
  /// `GROUPENUMERATOR_READ_AHEAD=N` sets another depth, 0 turning it off (a diagnostic for
  /// benchmarks).
  static let depth: Int = {
    let value = ProcessInfo.processInfo.environment["GROUPENUMERATOR_READ_AHEAD"]
    return max(0, value.flatMap { Int($0) } ?? 16)
  }()

  /// The open library root the files are opened beneath.
  let root: LibraryRoot

  /// The read-ahead for files beneath `root`, or `nil` when it is turned off.
  init?(root: LibraryRoot) {
    guard Self.depth > 0 else { return nil }
    self.root = root
  }

  /// Asks for the first bytes of the file of job `index + depth` of `jobs`, when the
  /// reads are cold and there is such a job.
  ///
  /// - Parameter job: The job `depth` places ahead, if any.
  func advise(_ job: @autoclosure () -> ReadJob?) {
    guard root.readTally.isCold, let job = job(), job.file.problem == nil else { return }
    guard
      let descriptor = try? BeneathOpener.openFile(
        in: root.descriptor, relativePath: job.file.path.bytes, displayPath: job.file.path)
    else { return }
    defer { descriptor.close() }
    let size = Int(clamping: max(0, job.file.fileSize))
    descriptor.adviseWillNeed(
      offset: 0,
      length: PrefetchedByteSource<LibraryFile>.firstReadLength(count: size))
  }
}
