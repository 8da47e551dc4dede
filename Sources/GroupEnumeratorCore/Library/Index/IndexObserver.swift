import Synchronization

/// What the calls of one task did with files and the index, for tests of the calls that
/// return no ``EnumerationStatistics`` (``AssetsLibrary/asset(at:)``,
/// ``AssetsLibrary/groups(types:)``, ``AssetsLibrary/assets(filter:batchSize:)``).
///
/// Set with `IndexObserver.$current.withValue(observer) { … }`; the calls record into it
/// from the calling task, never from their worker threads.
final class IndexObserver: Sendable {
  /// What was recorded so far.
  struct Tally: Sendable, Equatable {
    /// Files handed to the reader (whether read or taken from the index).
    var jobs = 0
    /// Of those, the files whose asset came from the index.
    var taken = 0
    /// The warnings opening or using the index gave.
    var warnings: [String] = []

    /// The files that were opened and read.
    var read: Int { jobs - taken }
  }

  /// The observer of the current task, if a test set one.
  @TaskLocal static var current: IndexObserver?

  private let state = Mutex(Tally())

  /// What was recorded so far.
  var tally: Tally { state.withLock { $0 } }

  /// Records that `count` files were handed to the reader.
  static func recordJobs(_ count: Int) {
    current?.state.withLock { $0.jobs += count }
  }

  /// Records what `index` (or its opening) reported at the end of a call.
  static func recordClosing(_ index: IndexStore?, warnings: [String]) {
    current?.state.withLock {
      $0.taken += index?.counted.taken ?? 0
      $0.warnings += index?.warnings ?? warnings
    }
  }
}
