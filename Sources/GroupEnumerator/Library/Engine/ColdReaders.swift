import Dispatch
import Foundation

/// More readers while the files come from the disk.
///
/// The workers are as many as the cores: with the files in the page cache, reading is
/// work for a core, and more threads would only take turns. From a cold disk, a worker
/// spends most of its time waiting for its `pread`, one request at a time, while a disk
/// (an SSD, a virtual disk, a RAID set, a spinning disk with its elevator) answers several
/// requests at once sooner than the same requests one after another.
///
/// So, beside the workers, one thread watches the root's ``ReadTally``. Once it has seen
/// the reads come slowly (``ReadTally/isCold``) it starts ``count`` − 1 more readers and
/// becomes one itself; until then it only looks, once a millisecond, and it ends when
/// every file is taken. The readers take files from the same queue as the workers, so the
/// order of the output and what is held in memory do not change. They are threads of
/// their own, not blocks on the global dispatch queue, which keeps about as many threads
/// running as there are cores: its blocks would wait for a core, not for the disk.
struct ColdReaders: Sendable {
  /// How many readers join the workers on a cold disk: `GROUPENUMERATOR_COLD_READERS=N`
  /// (0 turns them off), else ``defaultCount``.
  static let count: Int = {
    let value = ProcessInfo.processInfo.environment["GROUPENUMERATOR_COLD_READERS"]
    return min(64, max(0, value.flatMap { Int($0) } ?? defaultCount))
  }()

  /// None for now: a process running many enumerations at once, each with its own
  /// readers, was slowed far past the workers alone when every read was slow (the test
  /// suite under AddressSanitizer). `GROUPENUMERATOR_COLD_READERS=4` (six requests in
  /// flight with two workers) is what docs/Performance.md measures.
  static let defaultCount = 0

  /// The reads watched: the root's tally (not the root, whose descriptor the watcher
  /// must not keep open).
  let tally: ReadTally
  /// How many readers join.
  let readers: Int

  /// The readers for files beneath `root`, or `nil` when `readers` is 0.
  init?(root: LibraryRoot, readers: Int = ColdReaders.count) {
    guard readers > 0 else { return nil }
    self.tally = root.readTally
    self.readers = readers
  }

  /// Starts the watcher in `group` (entered now, left when it ends); once the reads are
  /// cold, it runs `read` on ``readers`` threads in `group`.
  ///
  /// - Parameters:
  ///   - isDone: Whether every file is taken.
  ///   - cancellation: Ends the watch when set.
  ///   - read: One reader: takes files until none is left (or the run is cancelled).
  func start(
    in group: DispatchGroup, isDone: @escaping @Sendable () -> Bool,
    cancellation: CancellationFlag, read: @escaping @Sendable () -> Void
  ) {
    let watch = Watch(tally: tally, readers: readers, isDone: isDone, read: read)
    Self.spawn(in: group) { watch.run(in: group, cancellation: cancellation) }
  }

  /// Runs `body` on a thread of its own, in `group`.
  private static func spawn(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    let thread = Thread {
      body()
      group.leave()
    }
    thread.start()
  }

  /// The watcher's state: what it starts once the reads are cold.
  private struct Watch: Sendable {
    let tally: ReadTally
    let readers: Int
    let isDone: @Sendable () -> Bool
    let read: @Sendable () -> Void

    func run(in group: DispatchGroup, cancellation: CancellationFlag) {
      while !cancellation.isSet, !isDone() {
        guard tally.isCold else {
          CurrentProcess.sleep(microseconds: 1000)
          continue
        }
        for _ in 1..<readers { ColdReaders.spawn(in: group, read) }
        read()
        return
      }
    }
  }
}
