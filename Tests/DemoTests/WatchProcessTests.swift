import Foundation
import Glibc
import Synchronization
import Testing

@testable import Demo

/// A running `Demo watch`, its standard output and error collected as they come.
final class WatchProcess: Sendable {
  final class Output: Sendable {
    let bytes = Mutex([[UInt8]](repeating: [], count: 2))
  }

  let process: Process
  let output = Output()

  /// Starts `Demo watch <library>`, or `launcher` with `arguments` (which runs it).
  init(library: String, launcher: URL? = nil, arguments: [String] = []) throws {
    process = Process()
    process.executableURL = launcher ?? demoExecutable
    process.arguments = launcher == nil ? ["watch", library] : arguments
    process.environment = processEnvironment
    let (out, err) = (Pipe(), Pipe())
    process.standardOutput = out
    process.standardError = err
    try SpawnFence.exclusive { try process.run() }
    for (index, pipe) in [out, err].enumerated() {
      let output = self.output
      let descriptor = pipe.fileHandleForReading.fileDescriptor
      Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = read(descriptor, &buffer, buffer.count)
          if count < 0, errno == EINTR { continue }
          guard count > 0 else { break }
          output.bytes.withLock { $0[index] += buffer[..<count] }
        }
        _ = pipe
      }
    }
  }

  /// Standard output's complete lines so far.
  var lines: [[UInt8]] {
    let bytes = output.bytes.withLock { $0[0] }
    return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
  }

  /// Standard error so far.
  var errors: String { String(decoding: output.bytes.withLock { $0[1] }, as: UTF8.self) }

  /// Each line of standard output parsed as a JSON object (`nil` for one that is not).
  var changes: [[String: Any]?] {
    lines.map { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
  }

  /// Waits until `condition` holds, at most `timeout`; polls, never asserts on a sleep.
  func wait(timeout: Duration = .seconds(60), until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition() { return true }
      usleep(20_000)
    }
    return condition()
  }

  /// Waits for the process to end, at most `timeout`; kills it after that.
  func waitForExit(timeout: Duration = .seconds(30)) -> Bool {
    let ended = wait(timeout: timeout) { !process.isRunning }
    if !ended { process.terminate() }
    process.waitUntilExit()
    return ended
  }

  /// How many assets the lines so far list under `key` (`insertedAssets`, …).
  func count(_ key: String) -> Int {
    changes.reduce(0) { $0 + (($1?[key] as? [Any])?.count ?? 0) }
  }

  /// The `path` of every asset the lines so far list under `key`.
  func paths(_ key: String) -> [String] {
    changes.flatMap { ($0?[key] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String } }
  }
}

@Suite(
  .serialized,
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct WatchProcessTests {
  let photo: Data

  init() throws {
    photo = try Data(contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG"))
  }

  /// A fresh temporary library with one photo.
  private func makeLibrary() throws -> TemporaryFolder {
    let folder = try TemporaryFolder("WatchProcessTests")
    try photo.write(to: URL(fileURLWithPath: folder.absolute("first.jpg")))
    return folder
  }

  @Test(.hangLimit)
  func changesAreNDJSONLinesWithHostileNamesEscapedAndCtrlCExits130() throws {
    let folder = try makeLibrary()
    let library = folder.path
    let watch = try WatchProcess(library: library)
    #expect(watch.wait { watch.errors.contains("Watching") })
    try FileManager.default.createDirectory(
      atPath: library + "/Album", withIntermediateDirectories: false)
    for index in 0..<3 {
      try photo.write(to: URL(fileURLWithPath: library + "/Album/\(index).jpg"))
    }
    // A name with an escape sequence, a newline and a byte that is not UTF-8.
    let hostile = Array((library + "/Album/bad\u{1B}[31m\n").utf8) + [0xFF] + Array(".jpg".utf8)
    let descriptor = open(hostile.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
    try #require(descriptor >= 0)
    _ = photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    #expect(watch.wait { watch.count("insertedAssets") == 4 })
    #expect(rename(library + "/first.jpg", library + "/renamed.jpg") == 0)
    #expect(watch.wait { watch.count("deletedAssets") == 1 })
    #expect(watch.wait { watch.count("insertedAssets") == 5 })
    #expect(!watch.lines.isEmpty)
    #expect(watch.changes.allSatisfy { $0 != nil }, "every line is one JSON object")
    #expect(watch.lines.allSatisfy { !$0.contains(0x1B) && $0.first == UInt8(ascii: "{") })
    #expect(watch.paths("insertedAssets").contains("Album/bad\u{1B}[31m\n%FF.jpg"))
    #expect(watch.paths("deletedAssets") == ["first.jpg"])
    #expect(watch.paths("insertedAssets").last == "renamed.jpg")
    let groups = watch.changes.flatMap { ($0?["insertedGroups"] as? [[String: Any]]) ?? [] }
    #expect(groups.compactMap { $0["path"] as? String } == ["Album"])
    kill(watch.process.processIdentifier, SIGINT)
    #expect(watch.waitForExit())
    #expect(watch.process.terminationReason == .exit)
    #expect(watch.process.terminationStatus == 130)
  }

  /// In a user namespace of its own, `max_inotify_watches` can be lowered for the Demo
  /// alone (it counts per user namespace): three watches for seven folders. The warning
  /// that says so comes once.
  @Test(.hangLimit)
  func foldersBeyondTheWatchLimitAreStillReportedByRescans() throws {
    let unshare = URL(fileURLWithPath: "/usr/bin/unshare")
    let probe = try run(
      unshare, ["-Ur", "/bin/sh", "-c", "echo 3 > /proc/sys/user/max_inotify_watches"])
    try #require(
      probe.status == 0, "needs unprivileged user namespaces (unshare -Ur): \(probe.stderr)")
    let folder = try makeLibrary()
    let library = folder.path
    for index in 0..<6 {
      try FileManager.default.createDirectory(
        atPath: library + "/A\(index)", withIntermediateDirectories: false)
      try photo.write(to: URL(fileURLWithPath: library + "/A\(index)/old.jpg"))
    }
    let script = "echo 3 > /proc/sys/user/max_inotify_watches && exec \"$0\" watch \"$1\""
    let watch = try WatchProcess(
      library: library, launcher: unshare,
      arguments: ["-Ur", "/bin/sh", "-c", script, demoExecutable.path, library])
    #expect(watch.wait { watch.errors.contains("Watching") })
    for index in 0..<6 {
      try photo.write(to: URL(fileURLWithPath: library + "/A\(index)/new.jpg"))
    }
    #expect(watch.wait { watch.count("insertedAssets") == 6 })
    #expect(Set(watch.paths("insertedAssets")) == Set((0..<6).map { "A\($0)/new.jpg" }))
    // Why every folder is read again on a timer is said once, with the setting to raise.
    let warnings = watch.errors.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("limit 3") == true)
    #expect(warnings.first?.contains("fs.inotify.max_user_watches") == true)
    kill(watch.process.processIdentifier, SIGINT)
    #expect(watch.waitForExit())
    #expect(watch.process.terminationStatus == 130)
  }

  /// No inotify instance to be had (`max_inotify_instances` 0 in a user namespace, as
  /// when a user has used them all): a clear error naming the call, status 1.
  @Test(.hangLimit)
  func noInotifyInstanceIsAClearErrorNotACrash() throws {
    let unshare = URL(fileURLWithPath: "/usr/bin/unshare")
    let probe = try run(unshare, ["-Ur", "/bin/true"])
    try #require(probe.status == 0, "needs unprivileged user namespaces: \(probe.stderr)")
    let folder = try makeLibrary()
    let library = folder.path
    let script = "echo 0 > /proc/sys/user/max_inotify_instances && exec \"$0\" watch \"$1\""
    let outcome = try run(
      unshare, ["-Ur", "/bin/sh", "-c", script, demoExecutable.path, library])
    #expect(outcome.exited && outcome.status == 1)
    #expect(outcome.stdout.isEmpty)
    #expect(
      outcome.stderr
        == "Error: Cannot read the photo library at '\(library)': inotify_init1 failed"
        + " (errno 24: Too many open files).\n")
  }

  @Test(.hangLimit)
  func theLibraryRemovedEndsTheWatchWithStatus1AndAMessage() throws {
    let folder = try makeLibrary()
    let library = folder.path
    let watch = try WatchProcess(library: library)
    #expect(watch.wait { watch.errors.contains("Watching") })
    try FileManager.default.removeItem(atPath: library)
    #expect(watch.waitForExit())
    #expect(watch.process.terminationReason == .exit)
    #expect(watch.process.terminationStatus == 1)
    #expect(watch.errors.contains("Error: No photo library at '\(library)'"), "\(watch.errors)")
  }
}
