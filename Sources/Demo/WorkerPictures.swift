import Dispatch
import Foundation
import Glibc
import GroupEnumerator

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

/// One worker process and the socket that talks to it. Only the pool's current user of a
/// worker touches it, one call at a time.
final class WorkerProcess: Sendable {
  /// How long a worker whose connection closed may take to exit before it is killed.
  static let exitGrace: Duration = .seconds(2)

  /// The worker's process id.
  let pid: pid_t
  /// This end of the worker's connection: requests are written to it and replies read
  /// from it; the other end is the worker's standard input and output.
  let channel: Int32

  private init(pid: pid_t, channel: Int32) {
    self.pid = pid
    self.channel = channel
  }

  /// What became of one request.
  enum Outcome: Sendable {
    /// The worker answered and is ready for another request.
    case answered(Result<AssetImage, PictureFailure>)
    /// The worker is gone (reaped), for the reason given.
    case ended(String)
    /// The worker was gone (reaped) before it could take the request.
    case lost(String)
  }

  /// `errno` of a failed start.
  struct StartFailure: Error {
    let code: Int32
  }

  /// Starts `executable` with `arguments`: standard input and output are one end of a
  /// Unix socket pair whose other end this process keeps, standard error is /dev/null,
  /// descriptor 3 is `root`; every signal is at its default action and unblocked in the
  /// worker, which closes any other descriptor it inherited (``PictureWorker``).
  ///
  /// A socket pair rather than two pipes: it is made close-on-exec at once
  /// (`SOCK_CLOEXEC`; `pipe2` is not visible to Swift here), so a process another thread
  /// starts meanwhile cannot hold the worker's end open, and a write to a worker that died
  /// fails with `EPIPE` (`MSG_NOSIGNAL`) without a `SIGPIPE`, whatever the process does
  /// with that signal.
  static func start(
    executable: String, arguments: [String], extraEnvironment: [String], root: Int32
  ) -> Result<WorkerProcess, StartFailure> {
    var ends: [Int32] = [-1, -1]
    guard
      socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        == 0
    else { return .failure(StartFailure(code: errno)) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, root, PictureWorker.rootDescriptor)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // The Demo ignores SIGPIPE, SIGINT, SIGTERM and SIGHUP while it runs; a worker must
    // not inherit that (a Ctrl-C ends it too).
    var everySignal = sigset_t()
    sigfillset(&everySignal)
    posix_spawnattr_setsigdefault(&attributes, &everySignal)
    var noSignal = sigset_t()
    sigemptyset(&noSignal)
    posix_spawnattr_setsigmask(&attributes, &noSignal)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    // The Demo's environment, with Swift's crash backtracer off: a worker that crashes
    // ends at once instead of printing a backtrace for seconds.
    var environment: [String] = []
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if !text.hasPrefix("SWIFT_BACKTRACE=") { environment.append(text) }
      entry += 1
    }
    environment.append("SWIFT_BACKTRACE=enable=no")
    environment += extraEnvironment
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    _ = close(ends[1])
    guard status == 0 else {
      _ = close(ends[0])
      return .failure(StartFailure(code: status))
    }
    return .success(WorkerProcess(pid: pid, channel: ends[0]))
  }

  /// Sends `frame` and waits for the reply until `deadline` has passed. A worker that
  /// does not answer in time is killed; one that dies or answers with anything but one
  /// well-formed frame is reaped (killed first if need be); either way its connection is
  /// closed.
  func exchange(_ frame: [UInt8], deadline: Duration) -> Outcome {
    let clock = ContinuousClock()
    let end = clock.now + deadline
    guard writeAll(frame) else { return .lost(finish(kill: false)) }
    var reader = FrameReader(limit: PictureFrames.maximumReply)
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let remaining = end - clock.now
      guard remaining > .zero else {
        _ = finish(kill: true)
        return .ended("the picture took longer than \(Self.seconds(deadline))")
      }
      let milliseconds = Int32(
        clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds
          / 1_000_000_000_000_000 + 1)
      var descriptor = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, milliseconds)
      if ready < 0, errno == EINTR { continue }
      guard ready >= 0 else { return .ended(finish(kill: true)) }
      guard ready > 0 else { continue }
      let count = chunk.withUnsafeMutableBytes { read(channel, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR || errno == EAGAIN { continue }
      guard count > 0 else { return .ended(finish(kill: false)) }
      reader.append(chunk[..<count])
      do throws(PictureFrames.Malformed) {
        guard let payload = try reader.next() else { continue }
        guard reader.isEmpty else {
          throw .invalid("bytes after the reply")
        }
        return .answered(try PictureFrames.reply(from: payload))
      } catch {
        _ = finish(kill: true)
        return .ended("its picture worker sent a malformed reply (\(error))")
      }
    }
  }

  /// Closes the connection, waits for the worker to exit (killing it after ``exitGrace``),
  /// and reaps it.
  func stop() {
    _ = finish(kill: false)
  }

  /// Closes the connection, reaps the worker (killed at once with `kill`, else after
  /// ``exitGrace``) and says how it ended.
  private func finish(kill: Bool) -> String {
    _ = close(channel)
    if kill { _ = Glibc.kill(pid, SIGKILL) }
    let clock = ContinuousClock()
    let end = clock.now + Self.exitGrace
    var status: Int32 = 0
    var killed = kill
    while true {
      let waited = waitpid(pid, &status, killed ? 0 : WNOHANG)
      if waited == pid { break }
      if waited < 0, errno == EINTR { continue }
      // Reaped by someone else: the status is lost.
      if waited < 0 { return "its picture worker ended" }
      if clock.now >= end {
        _ = Glibc.kill(pid, SIGKILL)
        killed = true
      } else {
        usleep(10_000)
      }
    }
    return Self.describe(status: status)
  }

  /// How a worker that was drawing ended, from its `waitpid` status.
  static func describe(status: Int32) -> String {
    let signal = status & 0x7F
    if signal != 0, signal != 0x7F {
      return "its picture worker was killed by \(signalName(signal))"
    }
    return "its picture worker exited with status \((status >> 8) & 0xFF) before answering"
  }

  /// `SIGSEGV` for 11, and so on; `signal N` for one without a name here.
  static func signalName(_ number: Int32) -> String {
    let names: [Int32: String] = [
      SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL",
      SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
      SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM",
      SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
    ]
    return names[number] ?? "signal \(number)"
  }

  /// `15 s`, `1.5 s`.
  static func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    if fraction == 0 { return "\(whole) s" }
    return String(format: "%.1f s", Double(whole) + Double(fraction) / 1e18)
  }

  private func writeAll(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        send(channel, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }
}
