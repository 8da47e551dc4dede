import Dispatch
import FoundationEssentials
import Synchronization

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
///
/// The readers of every run in the process share one ``Budget`` of ``count`` threads: a
/// process that runs many enumerations at once (a server, the test suite) gets no more
/// readers than one run alone, and a run that finds the budget spent reads with its
/// workers, looking again now and then for readers another run gave back.
struct ColdReaders: Sendable {
  /// How many readers join the workers on a cold disk: `GROUPENUMERATOR_COLD_READERS=N`
  /// (0 turns them off), else ``defaultCount``.
  static let count: Int = {
    let value = ProcessInfo.processInfo.environment["GROUPENUMERATOR_COLD_READERS"]
    return min(64, max(0, value.flatMap { Int($0) } ?? defaultCount))
  }()

  /// Four: six requests in flight with two workers, what docs/Performance.md measures.
  static let defaultCount = 4

  /// The reader threads every run of this process draws from.
  static let processBudget = Budget(threads: count)

  /// Reader threads shared by runs: taken when a run's reads turn cold, given back as
  /// each reader ends.
  final class Budget: Sendable {
    private let free: Atomic<Int>

    /// A budget of `threads` readers at once.
    init(threads: Int) { free = Atomic(max(0, threads)) }

    /// Takes up to `wanted` threads; returns how many it took (0 when none is free).
    func take(upTo wanted: Int) -> Int {
      var current = free.load(ordering: .relaxed)
      while current > 0 {
        let taken = min(current, wanted)
        let (exchanged, original) = free.compareExchange(
          expected: current, desired: current - taken, ordering: .acquiringAndReleasing)
        if exchanged { return taken }
        current = original
      }
      return 0
    }

    /// Gives back one thread.
    func giveBack() { free.add(1, ordering: .acquiringAndReleasing) }

    /// How many threads are free now.
    var available: Int { free.load(ordering: .relaxed) }
  }

  /// The reads watched: the root's tally (not the root, whose descriptor the watcher
  /// must not keep open).
  let tally: ReadTally
  /// How many readers join, at most.
  let readers: Int
  /// Where the reader threads come from.
  let budget: Budget

  /// The readers for files beneath `root`, or `nil` when `readers` is 0.
  init?(
    root: LibraryRoot, readers: Int = ColdReaders.count,
    budget: Budget = ColdReaders.processBudget
  ) {
    guard readers > 0 else { return nil }
    self.tally = root.readTally
    self.readers = readers
    self.budget = budget
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
    let watch = Watch(
      tally: tally, readers: readers, budget: budget, isDone: isDone, read: read)
    Self.spawn(in: group) { watch.run(in: group, cancellation: cancellation) }
  }

  /// Runs `body` on a thread of its own, in `group`.
  ///
  /// The thread lets go of `body`, and of the run's state it holds, before it leaves
  /// `group`: the closure a thread runs is released only after its last step, which may
  /// be after the run has returned (or the process has begun to exit).
  private static func spawn(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    let once = Once(body)
    SpawnedThread.run {
      once.run()
      group.leave()
    }
  }

  /// A body run once and then let go.
  private final class Once: Sendable {
    private let body: Mutex<(@Sendable () -> Void)?>

    init(_ body: @escaping @Sendable () -> Void) { self.body = Mutex(body) }

    /// Runs the body, then drops it (and what it holds) before returning.
    func run() {
      let taken = body.withLock { body in
        defer { body = nil }
        return body
      }
      taken?()
    }
  }

  /// The watcher's state: what it starts once the reads are cold.
  private struct Watch: Sendable {
    let tally: ReadTally
    let readers: Int
    let budget: Budget
    let isDone: @Sendable () -> Bool
    let read: @Sendable () -> Void

    /// Looks once a millisecond until the reads are cold, then every 10 ms until the
    /// budget has a thread; the watcher is the last of the readers it starts.
    func run(in group: DispatchGroup, cancellation: CancellationFlag) {
      while !cancellation.isSet, !isDone() {
        guard tally.isCold else {
          CurrentProcess.sleep(microseconds: 1000)
          continue
        }
        let taken = budget.take(upTo: readers)
        guard taken > 0 else {
          CurrentProcess.sleep(microseconds: 10_000)
          continue
        }
        let read = self.read
        let budget = self.budget
        for _ in 1..<taken {
          ColdReaders.spawn(in: group) {
            read()
            budget.giveBack()
          }
        }
        read()
        budget.giveBack()
        return
      }
    }
  }
}
