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
public func run(
  _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
  in directory: String? = nil, limit: Duration = .seconds(30)
) throws -> Outcome {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
  process.environment = processEnvironment.merging(environment) { _, given in given }
  let (out, err) = (Pipe(), Pipe())
  process.standardOutput = out
  process.standardError = err
  try SpawnFence.exclusive { try process.run() }
  let deadline = ContinuousClock.now + limit
  // Read both pipes to the end, so a large output cannot fill a pipe and stall the child.
  let collected = LockedValue<[Data]>([Data(), Data()])
  let readers = DispatchGroup()
  for (index, pipe) in [out, err].enumerated() {
    DispatchQueue.global().async(group: readers) {
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      collected.withLock { $0[index] = data }
    }
  }
  while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
  if process.isRunning { process.terminate() }
  process.waitUntilExit()
  readers.wait()
  let (stdout, stderr) = collected.withLock { ($0[0], $0[1]) }
  return Outcome(
    status: process.terminationStatus, exited: process.terminationReason == .exit,
    stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self)
  )
}

/// The Demo started with `arguments`, its standard output and error read into buffers by
/// other threads while the test goes on (``run(_:_:environment:limit:)`` waits instead).
public final class Running: Sendable {
  /// The started process.
  public let process: Process
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
    try SpawnFence.exclusive { try process.run() }
    let pid = process.processIdentifier
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

  /// Waits for the process and both pipes.
  public func wait() -> (status: Int32, exited: Bool, stdout: Data, stderr: String) {
    process.waitUntilExit()
    finished.wait()
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
