public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The built `Demo` executable: SwiftPM puts it next to the test bundle.
public let demoExecutable = URL(fileURLWithPath: CommandLine.arguments[0])
  .deletingLastPathComponent().appendingPathComponent("Demo")

/// The environment every process of the tests starts from: no backtracer (a crash must
/// fail the test, not print for a minute), a fixed search path, nothing of the caller's.
public let processEnvironment = ["SWIFT_BACKTRACE": "enable=no", "PATH": "/usr/bin:/bin"]

/// What a finished process did.
public struct Outcome: Sendable {
  /// The exit status, or the signal that ended it.
  public var status: Int32
  /// False when a signal ended it (`status` is then the signal).
  public var exited: Bool
  /// Its standard output, as UTF-8 (invalid bytes replaced).
  public var stdout: String
  /// Its standard error, as UTF-8 (invalid bytes replaced).
  public var stderr: String

  /// An outcome of the given parts.
  public init(status: Int32, exited: Bool, stdout: String, stderr: String) {
    self.status = status
    self.exited = exited
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// Runs `executable` with `arguments` (no shell) and `environment` added to
/// ``processEnvironment``, in `directory` when given, killing it after `limit`.
///
/// Awaits the child's end rather than waiting for it: the test's task holds no thread of the
/// cooperative pool meanwhile. At most ``ChildSlots/shared``'s count of these children live
/// at once; `limit` counts from the child's start.
public func run(
  _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
  in directory: String? = nil, limit: Duration = .seconds(30)
) async throws -> Outcome {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
  process.environment = processEnvironment.merging(environment) { _, given in given }
  let (out, err) = (Pipe(), Pipe())
  process.standardOutput = out
  process.standardError = err
  await ChildSlots.shared.take()
  let end: ProcessEnd
  do {
    end = try launch(process)
  } catch {
    await ChildSlots.shared.give()
    throw error
  }
  // Read both pipes to the end, so a large output cannot fill a pipe and stall the child.
  let (stdout, stderr) = (Reading(out.fileHandleForReading), Reading(err.fileHandleForReading))
  let overtime = DispatchWorkItem { if process.isRunning { process.terminate() } }
  DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(limit), execute: overtime)
  await end.wait()
  overtime.cancel()
  await ChildSlots.shared.give()
  return Outcome(
    status: process.terminationStatus, exited: process.terminationReason == .exit,
    stdout: String(decoding: await stdout.data, as: UTF8.self),
    stderr: String(decoding: await stderr.data, as: UTF8.self)
  )
}

/// Starts `process` and returns its end, to await instead of `waitUntilExit()`.
///
/// Sets the process's `terminationHandler` (before starting it, so that no end is missed).
public func launch(_ process: Process) throws -> ProcessEnd {
  let end = ProcessEnd()
  process.terminationHandler = { _ in end.happened() }
  try process.run()
  return end
}

/// The end of a process started by ``launch(_:)``.
///
/// A test awaits it: `waitUntilExit()` would hold one of the cooperative pool's threads (as
/// many as there are cores) for the child's whole life, and other tests' tasks would wait
/// for a thread meanwhile, past their time limits.
public final class ProcessEnd: Sendable {
  private let state = LockedValue<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  fileprivate init() {}

  fileprivate func happened() {
    let waiters = state.withLock { state in
      state.ended = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once the process has ended; its `terminationStatus` and `terminationReason`
  /// are set by then.
  public func wait() async {
    await withCheckedContinuation { continuation in
      let ended = state.withLock { state in
        if !state.ended { state.waiters.append(continuation) }
        return state.ended
      }
      if ended { continuation.resume() }
    }
  }
}

/// Everything a file handle gives until its end, read from now on by a Dispatch thread (not
/// the cooperative pool's: the read blocks as long as the writer lives), then awaited.
public final class Reading: Sendable {
  private let state = LockedValue<(data: Data?, waiters: [CheckedContinuation<Data, Never>])>(
    (nil, []))

  /// Starts reading `handle` to its end.
  public init(_ handle: FileHandle) {
    DispatchQueue.global().async { [state] in
      let data = handle.readDataToEndOfFile()
      let waiters = state.withLock { state in
        state.data = data
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume(returning: data) }
    }
  }

  /// The bytes, once the handle's end is reached.
  public var data: Data {
    get async {
      await withCheckedContinuation { continuation in
        let data = state.withLock { state in
          if state.data == nil { state.waiters.append(continuation) }
          return state.data
        }
        if let data { continuation.resume(returning: data) }
      }
    }
  }
}

/// Runs `body`, which blocks (on a child's output, say), on a Dispatch thread, and awaits
/// its result: the test's task holds no thread of the cooperative pool meanwhile.
public func onAThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: body()) }
  }
}

/// How many children ``run(_:_:environment:in:limit:)`` lets live at once.
///
/// The tests no longer hold a thread each while a child runs, so nothing else bounds how
/// many run together; without a bound, dozens of children share the cores and each one's
/// `limit` could pass before it is done.
public actor ChildSlots {
  /// The slots of all tests: two per core.
  public static let shared = ChildSlots(count: 2 * ProcessInfo.processInfo.activeProcessorCount)

  private var free: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(count: Int) { free = max(1, count) }

  /// Returns once a slot is free, and holds it.
  public func take() async {
    if free > 0 {
      free -= 1
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Hands a held slot to the first waiter, or frees it.
  public func give() {
    if waiting.isEmpty {
      free += 1
    } else {
      waiting.removeFirst().resume()
    }
  }
}

/// `duration` as Dispatch counts time, in nanoseconds.
func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
  let (seconds, attoseconds) = duration.components
  return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
}

extension DispatchGroup {
  /// Returns once every block of the group has finished, holding no thread meanwhile.
  func finished() async {
    await withCheckedContinuation { continuation in
      notify(queue: .global()) { continuation.resume() }
    }
  }
}

/// The Demo started with `arguments`, its standard output and error read into buffers by
/// other threads while the test goes on (``run(_:_:environment:in:limit:)`` awaits the end instead).
public final class Running: Sendable {
  /// The started process.
  public let process: Process
  private let end: ProcessEnd
  private let output = LockedValue(Data())
  private let errorText = LockedValue("")
  private let finished = DispatchGroup()

  /// - Parameter killAfterLines: When given, the thread that reads the output sends
  ///   SIGKILL as soon as that many lines are out (not the test's task, which a busy
  ///   cooperative pool may wake late).
  public init(_ arguments: [String], killAfterLines: Int? = nil) throws {
    process = Process()
    process.executableURL = demoExecutable
    process.arguments = arguments
    process.environment = processEnvironment
    let pipe = Pipe()
    let errors = Pipe()
    process.standardOutput = pipe
    process.standardError = errors
    end = try launch(process)
    let pid = process.processIdentifier
    // Each pipe is read on a Dispatch thread: the reads block for the child's life.
    DispatchQueue.global().async(group: finished) { [self] in
      var lines = 0
      while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty {
        output.withLock { $0.append(chunk) }
        guard let limit = killAfterLines, lines < limit else { continue }
        lines += chunk.count { $0 == UInt8(ascii: "\n") }
        if lines >= limit { kill(pid, SIGKILL) }
      }
    }
    DispatchQueue.global().async(group: finished) { [self] in
      let data = errors.fileHandleForReading.readDataToEndOfFile()
      errorText.withLock { $0 = String(decoding: data, as: UTF8.self) }
    }
  }

  /// Awaits the process's end and both pipes'.
  public func wait() async -> (status: Int32, exited: Bool, stdout: Data, stderr: String) {
    await end.wait()
    await finished.finished()
    return (
      process.terminationStatus, process.terminationReason == .exit,
      output.withLock { $0 }, errorText.withLock { $0 }
    )
  }
}

/// A copy of `Fixtures/Library` in a fresh ``TemporaryFolder``, removed with it; `path` is
/// the copy, and names beside it (`path + "-x"`) are inside the temporary folder too.
public final class LibraryCopy {
  /// The folder that holds the copy.
  public let folder: TemporaryFolder
  /// The copy's absolute path.
  public let path: String

  /// Copies the library into a new temporary folder.
  public init() throws {
    folder = try TemporaryFolder("DemoProcessTests")
    path = try folder.copyLibrary(as: "Library").path
  }
}

/// A value shared between threads behind an `NSLock`.
///
/// Not `Synchronization.Mutex`: on Linux it waits on futexes directly, which
/// ThreadSanitizer does not see, so `make tsan` reports the accesses it orders as races.
/// `NSLock` is a pthread mutex, whose ordering the sanitizer knows.
final class LockedValue<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, which holds `lock` for the
  // whole access, so no two threads touch it at once; `Value` never leaves it except as a
  // copy returned by the caller's closure (the callers keep `Value` Sendable data).
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
