import Dispatch
import Foundation
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

/// Reads many files on the global dispatch queue with a fixed number of workers, keeping
/// results in job order.
enum ParallelReader {
  /// Runs a reader over every job with at most `width` at once: each worker makes its
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
    readAhead: ReadAhead? = nil, makeReader: @escaping @Sendable () -> (ReadJob) -> Output
  ) async -> [Output?] {
    let workers = max(1, min(width, jobs.count))
    let group = DispatchGroup()
    let box = Shared<Output>(jobs: jobs, makeReader: makeReader, readAhead: readAhead)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      for _ in 0..<workers {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          // A local, released when this body returns: before the group is left, whereas
          // the block itself may be released after `notify` has run.
          guard let makeReader = box.makeReader.withLock({ $0 }) else { return }
          let read = makeReader()
          while !cancellation.isSet {
            let index = box.next.add(1, ordering: .relaxed).oldValue
            guard index < box.jobs.count else { break }
            let output = read(box.jobs[index])
            box.results.withLock { $0[index] = output }
            let done = box.completed.add(1, ordering: .acquiringAndReleasing).newValue
            throttle?.completed(done)
          }
        }
      }
      for _ in 0..<(readAhead == nil ? 0 : ReadAhead.threads) {
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
          // A local, as `read` above: the block itself does not hold the root.
          guard let readAhead = box.readAhead.withLock({ $0 }) else { return }
          readAhead.run(
            count: jobs.count, job: { jobs[$0] },
            taken: { box.next.load(ordering: .relaxed) }, cancellation: cancellation)
        }
      }
      group.notify(queue: .global()) {
        box.makeReader.withLock { $0 = nil }
        box.readAhead.withLock { $0 = nil }
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
    /// The read-ahead (which holds the root) until every worker is done; then `nil`.
    let readAhead: SanitizerVisibleMutex<ReadAhead?>

    init(
      jobs: [ReadJob], makeReader: @escaping @Sendable () -> (ReadJob) -> Output,
      readAhead: ReadAhead?
    ) {
      self.jobs = jobs
      self.results = SanitizerVisibleMutex(Array(repeating: nil, count: jobs.count))
      self.makeReader = SanitizerVisibleMutex(makeReader)
      self.readAhead = SanitizerVisibleMutex(readAhead)
    }
  }
}
