import Foundation
import Glibc
import Testing

@testable import Demo

/// The `warning:` lines of a process's error text.
private func warnings(_ outcome: Outcome) -> [Substring] {
  outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
}

/// A temporary folder with a settled copy of the bundled library, removed with the value.
private final class Workspace {
  let temporary: TemporaryFolder
  var folder: URL { temporary.root }
  var library: URL { folder.appendingPathComponent("Library") }
  var cache: URL { folder.appendingPathComponent("cache") }

  init() async throws {
    temporary = try TemporaryFolder("IndexLocationProcessTests")
    try temporary.copyLibrary(as: "Library")
    // Files are stored in the index only once their change time is settled.
    try await Task.sleep(for: .milliseconds(500))
  }

  /// The Demo's listing of the library in `format`, without an index: what every run
  /// with one must print.
  func plainListing(_ format: String = "json") throws -> Outcome {
    let plain = try run(demoExecutable, ["--format", format, library.path])
    #expect(plain.exited && plain.status == 0, "\(plain.stderr)")
    return plain
  }
}

private let python = URL(fileURLWithPath: "/usr/bin/python3")

/// `Demo --default-index` and a locked index, as separate processes: exit status, the
/// warning lines, and output identical to a run without an index.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct IndexLocationProcessTests {
  @Test func theDefaultIndexLivesInXDGCacheHomeAndTheSecondRunReadsNothing() async throws {
    let workspace = try await Workspace()
    let environment = ["XDG_CACHE_HOME": workspace.cache.path]
    let plain = try workspace.plainListing()
    let arguments = ["--format", "json", "--default-index", workspace.library.path]
    let first = try run(demoExecutable, arguments, environment: environment)
    let second = try run(demoExecutable, arguments + ["--statistics"], environment: environment)
    for outcome in [first, second] {
      #expect(outcome.exited && outcome.status == 0)
      #expect(outcome.stdout == plain.stdout)
      #expect(warnings(outcome).isEmpty, "\(outcome.stderr)")
    }
    #expect(second.stderr.contains(" files-read 0 "), "\(second.stderr)")
    let indexes = try FileManager.default.contentsOfDirectory(
      atPath: workspace.cache.appendingPathComponent("groupenumerator").path)
    #expect(indexes.count == 1 && indexes.first?.hasPrefix("Library-") == true, "\(indexes)")
  }

  @Test func withoutAnAbsoluteCacheFolderTheListingWarnsOnceAndIsUnchanged() async throws {
    let workspace = try await Workspace()
    let plain = try workspace.plainListing()
    let outcome = try run(
      demoExecutable,
      ["--format", "json", "--default-index", workspace.library.path],
      environment: ["XDG_CACHE_HOME": "relative/cache"])
    #expect(outcome.exited && outcome.status == 0)
    #expect(outcome.stdout == plain.stdout)
    #expect(warnings(outcome).count == 1, "\(outcome.stderr)")
    #expect(outcome.stderr.contains("neither XDG_CACHE_HOME nor HOME"), "\(outcome.stderr)")
  }

  @Test func anIndexFileAndTheDefaultIndexTogetherAreAUsageError() throws {
    let outcome = try run(demoExecutable, ["--index", "/tmp/x.sqlite", "--default-index"])
    #expect(outcome.exited && outcome.status == 64)
    #expect(
      outcome.stderr.hasPrefix(
        "Error: '--index /tmp/x.sqlite' and '--default-index' name two indexes."),
      "\(outcome.stderr)")
    #expect(outcome.stdout.isEmpty)
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: python.path), "needs python3"))
  func anIndexAnotherProcessKeepsLockedIsNotUsedWithOneWarningAndTheSameOutput()
    async throws
  {
    let workspace = try await Workspace()
    let index = workspace.folder.appendingPathComponent("index.sqlite")
    let plain = try workspace.plainListing("ndjson")
    let arguments = ["--format", "ndjson", "--index", index.path, workspace.library.path]
    let environment = ["GROUPENUMERATOR_INDEX_BUSY_TIMEOUT_MS": "300"]
    let made = try run(demoExecutable, arguments, environment: environment)
    #expect(made.exited && made.status == 0 && warnings(made).isEmpty, "\(made.stderr)")

    // A child holds the write lock until its standard input closes.
    let holder = Process()
    holder.executableURL = python
    holder.arguments = [
      "-c",
      """
      import sqlite3, sys
      c = sqlite3.connect(sys.argv[1], isolation_level=None)
      c.execute("BEGIN EXCLUSIVE")
      print("locked", flush=True)
      sys.stdin.read()
      """,
      index.path,
    ]
    let input = Pipe()
    let output = Pipe()
    holder.standardInput = input
    holder.standardOutput = output
    try SpawnFence.exclusive { try holder.run() }
    var said = Data()
    while !said.contains(UInt8(ascii: "\n")) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      said += chunk
    }
    #expect(String(decoding: said, as: UTF8.self) == "locked\n")

    // With `--statistics` the listing reads the library: a replay of the first run's
    // listing (ListingReplayProcessTests) would not open the index at all.
    let locked = try run(demoExecutable, arguments + ["--statistics"], environment: environment)
    try input.fileHandleForWriting.close()
    holder.waitUntilExit()
    #expect(holder.terminationStatus == 0)
    #expect(locked.exited && locked.status == 0)
    #expect(locked.stdout == plain.stdout)
    #expect(warnings(locked).count == 1, "\(locked.stderr)")
    #expect(locked.stderr.contains("stayed locked by another process"), "\(locked.stderr)")

    // The holder is gone: the index, untouched, is used again.
    let after = try run(demoExecutable, arguments + ["--statistics"], environment: environment)
    #expect(after.exited && after.status == 0 && warnings(after).isEmpty, "\(after.stderr)")
    #expect(after.stdout == plain.stdout)
    #expect(after.stderr.contains(" files-read 0 "), "\(after.stderr)")
  }

  @Test(SystemProbe.needsMount, .hangLimit)
  func anIndexInABindMountOfALibraryFolderIsRefused() async throws {
    guard SystemProbe.mayMount() else { return }
    let workspace = try await Workspace()
    let trips = workspace.library.appendingPathComponent("Trips").path
    let mounted = workspace.folder.appendingPathComponent("mounted").path
    #expect(mkdir(mounted, 0o755) == 0)
    let before = try FileManager.default.contentsOfDirectory(atPath: trips).sorted()
    let plain = try workspace.plainListing()
    let script = """
      mount --bind "$1" "$2" || exit 90
      shift 2
      exec "$@"
      """
    let outcome = try run(
      SystemProbe.unshare,
      [
        "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", trips, mounted,
        demoExecutable.path, "--index", mounted + "/index.sqlite", "--format", "json",
        workspace.library.path,
      ])
    #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
    #expect(outcome.stdout == plain.stdout)
    #expect(warnings(outcome).count == 1, "\(outcome.stderr)")
    #expect(outcome.stderr.contains("is inside the library"), "\(outcome.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: trips).sorted() == before)
  }

  @Test(SystemProbe.needsMount, .hangLimit)
  func aCacheFolderOnAReadOnlyMountGivesOneWarningAndTheSameOutput() async throws {
    guard SystemProbe.mayMount() else { return }
    let workspace = try await Workspace()
    let source = workspace.folder.appendingPathComponent("source").path
    let mounted = workspace.folder.appendingPathComponent("mounted").path
    for path in [source, mounted] { #expect(mkdir(path, 0o755) == 0) }
    let plain = try workspace.plainListing()
    let listing = [
      "/usr/bin/env", "XDG_CACHE_HOME=\(mounted)", demoExecutable.path, "--default-index",
      "--format", "json", workspace.library.path,
    ]
    // First the index folder cannot be made; then it exists, but no file can be made in it.
    let expectations = [
      "the folder '\(mounted)/groupenumerator' cannot be created (Read-only file system)",
      "was not used: sqlite3_open_v2",
    ]
    for expected in expectations {
      let outcome = try run(
        SystemProbe.unshare, readOnlyMount(source, on: mounted, then: listing))
      #expect(outcome.exited && outcome.status == 0)
      #expect(outcome.stdout == plain.stdout)
      #expect(warnings(outcome).count == 1, "\(outcome.stderr)")
      #expect(outcome.stderr.contains(expected), "\(outcome.stderr)")
      #expect(mkdir(source + "/groupenumerator", 0o700) == 0 || errno == EEXIST)
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: source + "/groupenumerator")
    #expect(left.isEmpty, "\(left)")
  }
}
