import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// Draws pictures in worker processes (``PictureWorker``: the Demo started again with a
/// hidden subcommand), so that a decoder's crash, hang or memory blow-up costs one picture
/// and never the run.
///
/// A small pool: at most `workers` processes (2 by default, never more than the cores),
/// started when first needed and reused. Each picture has a deadline (15 s, past the
/// renderer's own 10 s for a movie's frame search): past it the worker is killed
/// (`SIGKILL`) and the picture fails. A worker that dies (a signal, an exit, a reply
/// that is not a well-formed frame) costs the picture it was drawing; the next picture
/// gets a new worker. After ``deathLimit`` workers in a row end without a picture, the
/// pool stops starting them and every later picture fails at once, saying why.
/// ``shutDown()`` closes the connections and waits for every worker (no zombie is left).
actor WorkerPictures: PictureSource {
  /// How long a picture may take by default.
  static let defaultDeadline: Duration = .seconds(15)
  /// How many workers in a row may end without a picture before the pool gives up.
  static let deathLimit = 5

  private let executable: String
  private let arguments: [String]
  private let extraEnvironment: [String]
  private let deadline: Duration
  private let capacity: Int
  /// The library folder, open for the workers (their descriptor 3); -1 once closed.
  private var rootDescriptor: Int32
  private var rootFailure: String?
  private var idle: [WorkerProcess] = []
  /// Workers started and not yet reaped, idle or drawing.
  private var alive = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var drained: [CheckedContinuation<Void, Never>] = []
  private var deathsInARow = 0
  private var lastDeath = ""
  private var isShutDown = false
  /// The process ids of every worker started, oldest first.
  private(set) var startedWorkers: [pid_t] = []

  /// A pool that draws pictures of `library`'s assets.
  ///
  /// - Parameters:
  ///   - library: The library; its folder is opened again here, for the workers.
  ///   - executable: The Demo executable to start (this one by default).
  ///   - workers: The most workers at once (1 up to the number of cores).
  ///   - deadline: How long one picture may take.
  ///   - environment: Variables added to the workers' environment (tests use the fault
  ///     hook, ``PictureWorker/faultVariable``).
  ///   - handsOnStored: Whether the workers hand on the picture cache's stored entries
  ///     (``InProcessPictures/handsOnStored``).
  init(
    library: AssetsLibrary, executable: String = "/proc/self/exe", workers: Int = 2,
    deadline: Duration = defaultDeadline, environment: [String: String] = [:],
    handsOnStored: Bool = false
  ) {
    self.executable = executable
    arguments =
      ["Demo", PictureWorker.subcommand] + PictureWorker.arguments(for: library.options)
      + (handsOnStored ? [PictureWorker.storedArgument] : [])
    extraEnvironment = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    self.deadline = deadline
    capacity = max(1, min(workers, ProcessInfo.processInfo.activeProcessorCount))
    let opened = open(library.root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    // Above the descriptors a spawn rearranges (0 to 3), so that no dup2 lands on itself.
    let moved = opened >= 0 ? fcntl(opened, F_DUPFD_CLOEXEC, 10) : -1
    let code = errno
    if opened >= 0 { _ = close(opened) }
    rootDescriptor = moved
    rootFailure =
      moved >= 0
      ? nil : "the library folder cannot be opened for the picture workers: \(Self.reason(code))"
  }

  deinit {
    if rootDescriptor >= 0 { _ = close(rootDescriptor) }
  }

  func picture(of asset: Asset, side: Int, fills: Bool) async -> Result<AssetImage, PictureFailure>
  {
    let name = asset.name
    let request = PictureFrames.payload(
      of: PictureFrames.Request(path: asset.path, side: side, fills: fills))
    guard request.count <= PictureFrames.maximumRequest else {
      return failure(name, "its path is too long")
    }
    // A worker that died while idle cannot take the request: the picture is not to blame,
    // and goes to a new worker (once; the death still counts).
    for attempt in 0..<2 {
      let worker: WorkerProcess
      switch await acquire() {
      case .success(let acquired): worker = acquired
      case .failure(let refusal): return .failure(PictureFailure(message: refusal.text(name)))
      }
      let deadline = self.deadline
      let outcome = await Self.offload {
        worker.exchange(PictureFrames.frame(request), deadline: deadline)
      }
      switch outcome {
      case .answered(let result):
        deathsInARow = 0
        await release(worker)
        return result
      case .lost(let reason) where attempt == 0:
        deathsInARow += 1
        lastDeath = reason
        workerEnded()
      case .ended(let reason), .lost(let reason):
        deathsInARow += 1
        lastDeath = reason
        workerEnded()
        return failure(name, reason)
      }
    }
    return failure(name, lastDeath)
  }

  func shutDown() async {
    isShutDown = true
    let stopping = idle
    idle = []
    for waiter in waiters { waiter.resume() }
    waiters = []
    await Self.offload { for worker in stopping { worker.stop() } }
    alive -= stopping.count
    if alive > 0 { await withCheckedContinuation { drained.append($0) } }
    if rootDescriptor >= 0 {
      _ = close(rootDescriptor)
      rootDescriptor = -1
    }
  }

  /// Why no worker was handed out: a sentence about the picture of the file named.
  private struct Refusal: Error {
    let text: @Sendable (String) -> String
  }

  /// An idle worker, a new one, or (when all are drawing) the next one freed.
  private func acquire() async -> Result<WorkerProcess, Refusal> {
    while true {
      if isShutDown {
        return .failure(Refusal { "'\($0)' was not drawn: the picture workers are shut down." })
      }
      if let rootFailure {
        let reason = rootFailure
        return .failure(Refusal { "'\($0)' was not drawn: \(reason)." })
      }
      if deathsInARow >= Self.deathLimit {
        let (count, last) = (deathsInARow, lastDeath)
        return .failure(
          Refusal {
            "'\($0)' was not drawn: \(count) picture workers in a row ended without a picture"
              + " (the last: \(last)), and no more are started."
          })
      }
      if let worker = idle.popLast() { return .success(worker) }
      if alive < capacity {
        switch WorkerProcess.start(
          executable: executable, arguments: arguments, extraEnvironment: extraEnvironment,
          root: rootDescriptor)
        {
        case .success(let worker):
          alive += 1
          startedWorkers.append(worker.pid)
          return .success(worker)
        case .failure(let error):
          deathsInARow += 1
          lastDeath = "a picture worker could not be started: \(Self.reason(error.code))"
          let reason = lastDeath
          return .failure(Refusal { "'\($0)' was not drawn: \(reason)." })
        }
      }
      await withCheckedContinuation { waiters.append($0) }
    }
  }

  /// Takes back a worker that answered: idle again, or stopped after ``shutDown()``.
  private func release(_ worker: WorkerProcess) async {
    if isShutDown {
      await Self.offload { worker.stop() }
      workerEnded()
    } else {
      idle.append(worker)
      if !waiters.isEmpty { waiters.removeFirst().resume() }
    }
  }

  /// Counts a worker gone (reaped) and wakes whoever waits for a place or for the end.
  private func workerEnded() {
    alive -= 1
    if !waiters.isEmpty { waiters.removeFirst().resume() }
    if alive == 0 {
      for waiter in drained { waiter.resume() }
      drained = []
    }
  }

  private func failure(_ name: String, _ reason: String) -> Result<AssetImage, PictureFailure> {
    .failure(PictureFailure(message: "'\(name)' could not be drawn: \(reason)."))
  }

  /// Runs blocking work (pipes, `waitpid`) on a Dispatch thread, off Swift's few
  /// concurrency threads.
  private static func offload<Value: Sendable>(
    _ work: @escaping @Sendable () -> Value
  ) async -> Value {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
  }

  fileprivate static func reason(_ code: Int32) -> String {
    String(cString: strerror(code))
  }
}
