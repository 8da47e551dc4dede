import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore

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
    return DecimalText.printed(Double(whole) + Double(fraction) / 1e18, decimalPlaces: 1) + " s"
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
