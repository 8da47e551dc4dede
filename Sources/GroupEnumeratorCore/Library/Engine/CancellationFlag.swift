import Synchronization

/// A flag that cancellation sets from any thread and workers poll.
///
/// A run of the engine (``LibraryRun``) owns one: the calling task's cancellation sets it
/// (``cancelling(isolation:_:)``), and the walk and the reading workers stop when they see
/// it, between two files. A delivery that is told to stop sets it too.
final class CancellationFlag: Sendable {
  private let state = Atomic<Bool>(false)

  /// Whether the flag is set.
  var isSet: Bool { state.load(ordering: .acquiring) }

  /// Sets the flag.
  func set() { state.store(true, ordering: .releasing) }

  /// Throws ``LibraryError/cancelled`` when the flag is set or the calling task is
  /// cancelled.
  func check() throws(LibraryError) {
    if isSet || Task.isCancelled { throw .cancelled }
  }

  /// Runs `body` with this flag set as soon as the calling task is cancelled, so that
  /// the threads `body` waits for stop too.
  ///
  /// Every step of a run goes through here, so a cancelled task ends every call the same
  /// way: with ``LibraryError/cancelled``, before the step starts, or after it ends.
  ///
  /// - Throws: What `body` throws, or ``LibraryError/cancelled``.
  func cancelling<Value>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(LibraryError) -> Value
  ) async throws(LibraryError) -> Value {
    try check()
    let outcome: Result<Value, LibraryError> = await withTaskCancellationHandler {
      do throws(LibraryError) {
        return .success(try await body())
      } catch {
        return .failure(error)
      }
    } onCancel: {
      self.set()
    }
    let value = try outcome.get()
    try check()
    return value
  }
}
