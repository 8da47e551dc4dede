import Foundation
import Synchronization

/// Keeps reads in flight on a cold disk: while the workers read one file each, a few more
/// threads ask the kernel to start reading the first bytes of the next ``depth`` files
/// (`posix_fadvise(POSIX_FADV_WILLNEED)`, which returns once the reads are queued), so
/// that the disk works on many reads at once instead of one per worker, and the workers'
/// own reads then find the bytes in the page cache. I/O concurrency apart from CPU
/// concurrency: the workers stay as many as the cores, and the order of the output and
/// what is held in memory do not change. The advice runs on threads of its own, not in
/// the workers, whose time it would take.
///
/// It pays only when the reads come from the disk: with the page cache warm, the extra
/// open, advice and close per file would cost time for nothing. So the threads only look,
/// once a millisecond, until the root's ``ReadTally`` has seen the reads come slowly
/// (``ReadTally/isCold``). Each advice opens the file beneath the root as every read does
/// (no link followed) and closes it at once: one descriptor more per advising thread.
struct ReadAhead: Sendable {
  /// How many files ahead of the workers the advice goes; 0 (the default) turns the read-ahead off,
  /// as none of the devices in docs/Performance.md gains from it. `GROUPENUMERATOR_READ_AHEAD=N`
  /// turns it on at depth N (for benchmarks, e.g. on a USB disk or a network mount).
  static let depth: Int = {
    let value = ProcessInfo.processInfo.environment["GROUPENUMERATOR_READ_AHEAD"]
    return max(0, value.flatMap { Int($0) } ?? 0)
  }()

  /// How many threads give the advice: opening a file and the advice itself wait for the
  /// disk too (the folder's entries, the file's inode and extents), so one thread cannot
  /// keep ahead of the workers.
  static let threads = 4

  /// The open library root the files are opened beneath.
  let root: LibraryRoot
  /// The index of the next job to advise, shared by the threads.
  private let cursor: Cursor

  private final class Cursor: Sendable {
    let next = Atomic<Int>(0)
  }

  /// How many files ahead of the workers this read-ahead goes.
  let distance: Int

  /// The read-ahead for files beneath `root`, or `nil` when `depth` is 0 (by default,
  /// ``depth``).
  init?(root: LibraryRoot, depth: Int = ReadAhead.depth) {
    guard depth > 0 else { return nil }
    self.root = root
    self.distance = depth
    self.cursor = Cursor()
  }

  /// Advises the jobs ahead of the workers until every job is taken or the run is
  /// cancelled; run on ``threads`` threads of their own, in the workers' dispatch group.
  ///
  /// - Parameters:
  ///   - count: How many jobs there are.
  ///   - job: The job at an index (`nil` for one already read).
  ///   - taken: How many jobs the workers have taken so far.
  ///   - cancellation: Ends the loop when set.
  func run(
    count: Int, job: (Int) -> ReadJob?, taken: () -> Int, cancellation: CancellationFlag
  ) {
    while !cancellation.isSet {
      let position = taken()
      guard position < count else { return }
      guard root.readTally.isCold else {
        CurrentProcess.sleep(microseconds: 1000)
        continue
      }
      let next = cursor.next.load(ordering: .relaxed)
      if next < position {  // The workers passed it: go on from where they are.
        _ = cursor.next.compareExchange(expected: next, desired: position, ordering: .relaxed)
        continue
      }
      guard next < min(count, position + distance) else {
        CurrentProcess.sleep(microseconds: 100)
        continue
      }
      guard
        cursor.next.compareExchange(expected: next, desired: next + 1, ordering: .relaxed)
          .exchanged
      else { continue }
      if let ahead = job(next) { advise(ahead) }
    }
  }

  /// Asks the kernel for the first read of `job`'s file, and for the last bytes of a
  /// video (its `moov` may be there) or, when the end checks run on every file, of any.
  func advise(_ job: ReadJob) {
    guard job.file.problem == nil,
      let descriptor = try? BeneathOpener.openFile(
        in: root.descriptor, relativePath: job.file.path.bytes, displayPath: job.file.path)
    else { return }
    defer { descriptor.close() }
    let size = Int(clamping: max(0, job.file.fileSize))
    let first = PrefetchedByteSource<LibraryFile>.firstReadLength(count: size)
    descriptor.adviseWillNeed(offset: 0, length: first)
    if size > first, job.file.type == .video || root.verifiesFileEnds {
      // A `moov` at the end, and the end checks (JPEG, PNG) when asked for, read the last
      // bytes too.
      let last = min(size - first, FileTail.firstLookLength)
      descriptor.adviseWillNeed(offset: size - last, length: last)
    }
  }
}
