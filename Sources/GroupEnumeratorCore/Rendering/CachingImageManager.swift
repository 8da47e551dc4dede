import FoundationEssentials

/// Fills a library's picture cache ahead of need, like `PHCachingImageManager`: a list
/// or a grid asks for the pictures of the rows about to be shown, then requests them with
/// ``AssetsLibrary/image(for:targetSize:contentMode:options:)``, which finds them in the
/// cache.
///
/// ```swift
/// let manager = CachingImageManager(library: library)
/// manager.startCaching(assets: upcoming, targetSize: CGSize(width: 80, height: 80),
///                      contentMode: .aspectFit)
/// // later, as rows scroll past
/// manager.stopCaching(assets: passed, targetSize: CGSize(width: 80, height: 80),
///                     contentMode: .aspectFit)
/// ```
///
/// The work is done in the order asked, at most ``maximumConcurrency`` pictures at a
/// time; stopping removes what has not started and cancels what has (a picture being
/// decoded finishes its decoding, and is not stored). It writes into the library's
/// ``LibraryOptions/pictureCache``: with ``PictureCacheLocation/none``, or for a box past
/// 1024 pixels, it does nothing. Failures are not reported here: the request that
/// follows reports them (a file that cannot be drawn gets a failure entry, so it is not
/// drawn twice).
public final class CachingImageManager: Sendable {
  /// The library whose cache is filled.
  public let library: AssetsLibrary
  /// How many pictures are drawn at once.
  public let maximumConcurrency: Int

  /// One picture to cache.
  private struct Job: Hashable, Sendable {
    var asset: UUID
    var width: Int
    var height: Int
    var contentMode: ImageContentMode
  }

  private struct State: Sendable {
    /// Waiting, in order, with their assets.
    var queue: [(job: Job, asset: Asset)] = []
    /// The first waiting job of ``queue`` (those before it were taken): taking one is
    /// O(1), and the taken ones are dropped once they are half the array.
    var head = 0
    var pending: ArraySlice<(job: Job, asset: Asset)> { queue[head...] }

    /// Drops the taken jobs.
    mutating func compact() {
      queue.removeFirst(head)
      head = 0
    }
    /// Being drawn.
    var running: [Job: Task<Void, Never>] = [:]
    /// The worker tasks, by number.
    var workers: [Int: Task<Void, Never>] = [:]
    var nextWorker = 0
    /// How many jobs have been started, ever.
    var started = 0
  }

  private let state = SanitizerVisibleMutex(State())

  /// Creates a manager for `library`'s cache.
  ///
  /// - Parameters:
  ///   - library: The library whose pictures are cached.
  ///   - maximumConcurrency: How many pictures are drawn at once; at least 1. Default 2.
  public init(library: AssetsLibrary, maximumConcurrency: Int = 2) {
    self.library = library
    self.maximumConcurrency = max(1, maximumConcurrency)
  }

  /// ``startCaching(assets:targetSize:contentMode:)`` (in the `GroupEnumerator` module,
  /// for its `CGSize`) with the size as two numbers, in pixels.
  package func startCaching(
    assets: [Asset], width: Double, height: Double, contentMode: ImageContentMode
  ) {
    guard let box = try? AssetsLibrary.box(width: width, height: height) else { return }
    let jobs = assets.map {
      (Job(asset: $0.id, width: box.width, height: box.height, contentMode: contentMode), $0)
    }
    state.withLock { state in
      var known = Set(state.pending.map(\.job)).union(state.running.keys)
      for (job, asset) in jobs where !known.contains(job) {
        state.queue.append((job, asset))
        known.insert(job)
      }
      // Registered before they run, so that a worker's own removal always finds it.
      while state.workers.count < maximumConcurrency, state.workers.count < state.pending.count {
        let number = state.nextWorker
        state.nextWorker += 1
        state.workers[number] = Task { [self] in await work(number) }
      }
    }
  }

  /// ``stopCaching(assets:targetSize:contentMode:)`` (in the `GroupEnumerator` module,
  /// for its `CGSize`) with the size as two numbers, in pixels.
  package func stopCaching(
    assets: [Asset], width: Double, height: Double, contentMode: ImageContentMode
  ) {
    guard let box = try? AssetsLibrary.box(width: width, height: height) else { return }
    let jobs = Set(
      assets.map {
        Job(asset: $0.id, width: box.width, height: box.height, contentMode: contentMode)
      })
    let cancelled = state.withLock { state -> [Task<Void, Never>] in
      state.compact()
      state.queue.removeAll { jobs.contains($0.job) }
      return jobs.compactMap { state.running[$0] }
    }
    for task in cancelled { task.cancel() }
  }

  /// Empties the queue and cancels every picture being drawn.
  public func stopCachingAllImages() {
    let cancelled = state.withLock { state -> [Task<Void, Never>] in
      state.queue.removeAll()
      state.head = 0
      return Array(state.running.values)
    }
    for task in cancelled { task.cancel() }
  }

  /// Returns when nothing is queued or being drawn (for batch tools and tests).
  public func waitUntilIdle() async {
    while true {
      let workers = state.withLock { Array($0.workers.values) }
      if workers.isEmpty { return }
      for worker in workers { await worker.value }
    }
  }

  /// How many pictures have been started since the manager was made (for tests: nothing
  /// queued starts once stopped).
  var startedCount: Int { state.withLock { $0.started } }

  /// A worker: takes the next job and draws it, until the queue is empty.
  private func work(_ number: Int) async {
    while let (job, task) = next(worker: number) {
      await task.value
      state.withLock { $0.running[job] = nil }
    }
  }

  /// The next job, its drawing started; `nil`, with the worker removed in the same
  /// step (so that a job queued meanwhile starts a new one), when the queue is empty.
  private func next(worker number: Int) -> (Job, Task<Void, Never>)? {
    let library = self.library
    return state.withLock { state -> (Job, Task<Void, Never>)? in
      guard !state.pending.isEmpty else {
        state.workers[number] = nil
        return nil
      }
      let (job, asset) = state.queue[state.head]
      state.head += 1
      if state.head >= 64, state.head * 2 >= state.queue.count { state.compact() }
      let task = Task {
        _ = try? await library.fillCache(for: asset, (job.width, job.height), job.contentMode)
      }
      state.running[job] = task
      state.started += 1
      return (job, task)
    }
  }
}
