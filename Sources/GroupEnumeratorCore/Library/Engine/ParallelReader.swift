import Dispatch
import FoundationEssentials
import Synchronization

/// One file to read and where its asset belongs.
struct ReadJob: Sendable {
  var file: ScannedFile
  var group: ScannedGroup.Key
}

extension ScannedGroup {
  /// What an asset needs to know of its group.
  struct Key: Sendable, Hashable {
    var kind: AssetGroup.Kind
    var path: LibraryPath
  }

  var key: Key { Key(kind: kind, path: path) }
}

/// Reads many files on the global dispatch queue with a fixed number of workers (and more
/// readers once the disk is seen to be cold: ``ColdReaders``), keeping results in job order.
enum ParallelReader {
  /// Runs a reader over every job with at most `width` at once (plus `coldReaders`' own,
  /// from a cold disk): each worker makes its
  /// own with `makeReader` (which may keep state for that worker alone, such as the
  /// folder it last looked in) and drops it when it ends.
  ///
  /// `makeReader` and the readers (and whatever they capture, such as the open
  /// ``LibraryRoot``) are released before this returns: no worker holds them afterwards.
  ///
  /// - Returns: One result per job, in job order; `nil` where cancellation stopped the
  ///   job before it ran.
  static func run<Output: Sendable>(
    jobs: [ReadJob], width: Int, cancellation: CancellationFlag, throttle: ProgressThrottle?,
    coldReaders: ColdReaders? = nil,
    makeReader: @escaping @Sendable () -> (ReadJob) -> Output
  ) async -> [Output?] {
    let workers = max(1, min(width, jobs.count))
    let group = DispatchGroup()
    let box = Shared<Output>(jobs: jobs, makeReader: makeReader)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for _ in 0..<workers {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          box.work(cancellation: cancellation, throttle: throttle)
        }
      }
      coldReaders?.start(
        in: group, isDone: { box.next.load(ordering: .relaxed) >= box.jobs.count },
        cancellation: cancellation
      ) { box.work(cancellation: cancellation, throttle: throttle) }
      group.notify(queue: .global()) {
        box.makeReader.withLock { $0 = nil }
        continuation.resume()
      }
    }
    return box.results.withLock { $0 }
  }

  /// The state the workers share; every stored property is itself thread-safe.
  private final class Shared<Output: Sendable>: Sendable {
    let jobs: [ReadJob]
    let results: SanitizerVisibleMutex<[Output?]>
    let next = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    /// What makes each worker's reader, until every worker is done; then `nil`.
    let makeReader: SanitizerVisibleMutex<(@Sendable () -> (ReadJob) -> Output)?>

    init(jobs: [ReadJob], makeReader: @escaping @Sendable () -> (ReadJob) -> Output) {
      self.jobs = jobs
      self.results = SanitizerVisibleMutex(Array(repeating: nil, count: jobs.count))
      self.makeReader = SanitizerVisibleMutex(makeReader)
    }

    /// One worker: makes its reader, then reads the next job until none is left.
    ///
    /// The reader (and the root it holds) is a local of this call, released when it
    /// returns: before the worker leaves the group, whereas the block or thread that runs
    /// it may be released after `notify` has run.
    func work(cancellation: CancellationFlag, throttle: ProgressThrottle?) {
      guard let makeReader = makeReader.withLock({ $0 }) else { return }
      let read = makeReader()
      while !cancellation.isSet {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < jobs.count else { break }
        let output = read(jobs[index])
        results.withLock { $0[index] = output }
        let done = completed.add(1, ordering: .acquiringAndReleasing).newValue
        throttle?.completed(done)
      }
    }
  }
}
