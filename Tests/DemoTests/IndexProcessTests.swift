import Foundation
import Glibc
import Synchronization
import Testing

@testable import Demo

/// A temporary folder holding `Library` (a copy of `Fixtures/Library` plus `links`
/// hard links of one of its JPEGs in `Many/`), removed with the value.
private final class Workspace {
  let temporary: TemporaryFolder
  var folder: URL { temporary.root }
  var library: URL { folder.appendingPathComponent("Library") }
  var index: URL { folder.appendingPathComponent("index.sqlite") }

  init(links: Int) async throws {
    temporary = try TemporaryFolder("IndexProcessTests")
    try temporary.copyLibrary(as: "Library")
    let many = library.appendingPathComponent("Many")
    try FileManager.default.createDirectory(at: many, withIntermediateDirectories: false)
    let source = library.appendingPathComponent("IMG_0001.JPG").path
    for number in 0..<links {
      let name = many.appendingPathComponent(String(format: "IMG_%05d.JPG", number)).path
      guard link(source, name) == 0 else { throw POSIXError(.EIO) }
    }
    // Files are stored in the index only once their change time is settled.
    try await Task.sleep(for: .milliseconds(250))
  }
}

/// `Demo --index` as separate processes: two at once on one index, and one killed
/// mid-run, whose index the next run uses.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct IndexProcessTests {
  @Test func twoProcessesOnOneIndexAtOnceBothSucceedWithIdenticalOutput() async throws {
    let workspace = try await Workspace(links: 1500)
    let plain = try Running(["--format", "json", workspace.library.path]).wait()
    #expect(plain.exited && plain.status == 0)
    let arguments = ["--format", "json", "--index", workspace.index.path, workspace.library.path]
    let first = try Running(arguments)
    let second = try Running(arguments)
    let outcomes = [first.wait(), second.wait()]
    for outcome in outcomes {
      #expect(outcome.exited && outcome.status == 0)
      #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
      #expect(outcome.stdout == plain.stdout)
    }
    let third = try Running(arguments + ["--statistics"]).wait()
    #expect(third.stdout == plain.stdout)
    #expect(third.stderr.contains(" files-read 0 files-from-index 1516 "), "\(third.stderr)")
  }

  /// `--index` given a text file by mistake: the listing as without an index, one warning
  /// naming the file, and the file (and its `-journal` beside it) not changed.
  @Test func aTextFileGivenAsTheIndexIsLeftAsItWas() async throws {
    let workspace = try await Workspace(links: 0)
    let notes = Data("shopping list\n".utf8)
    let journal = Data(repeating: 0xD9, count: 512)
    try notes.write(to: workspace.index)
    let journalURL = URL(fileURLWithPath: workspace.index.path + "-journal")
    try journal.write(to: journalURL)
    let plain = try Running(["--format", "json", workspace.library.path]).wait()
    let outcome = try Running(
      ["--format", "json", "--index", workspace.index.path, workspace.library.path]
    ).wait()
    #expect(outcome.exited && outcome.status == 0)
    #expect(outcome.stdout == plain.stdout)
    #expect(
      outcome.stderr
        == "warning: The index '\(workspace.index.path)' was not used: it is not an SQLite"
        + " database, so not an index; it was left as it was.\n")
    #expect(try Data(contentsOf: workspace.index) == notes)
    #expect(try Data(contentsOf: journalURL) == journal)
    let names = try FileManager.default.contentsOfDirectory(atPath: workspace.folder.path)
    #expect(names.sorted() == ["Library", "index.sqlite", "index.sqlite-journal"])
  }

  /// A run under a low descriptor limit meets `EMFILE` on some files (`unreadable: Cannot
  /// open '…': errno 24`); those results must not be stored, nor the listing that holds
  /// them kept for replay, or every later run would report the files unreadable under
  /// their unchanged keys, or print that listing again.
  @Test(.hangLimit)
  func resultsOfAPassingErrorAreNeverStored() async throws {
    let workspace = try await Workspace(links: 40)
    let plain = try Running(["--format", "json", workspace.library.path]).wait()
    let arguments = ["--format", "json", "--index", workspace.index.path, workspace.library.path]
    let replayFile = workspace.index.path + ListingReplay.suffix
    var sawPassingErrors = false
    // Which limit makes files (not folders) fail depends on the threads' timing and on
    // what the process opened before the listing, and only a few limits do (on a loaded
    // machine a sweep can miss them all): every limit up from a small one, in up to
    // eight sweeps, until one has.
    var runs = 0
    for _ in 0..<8 where !sawPassingErrors {
      for limit in 10...40 where !sawPassingErrors {
        // A clean run's listing would be replayed by the next run, which would then read
        // nothing: each run lists.
        unlink(replayFile)
        let low = try run(
          URL(fileURLWithPath: "/usr/bin/prlimit"),
          ["--nofile=\(limit):\(limit)", demoExecutable.path] + arguments)
        runs += 1
        #expect(low.exited, "\(limit): \(low.stderr)")
        // On a file (the listing) or on a folder (a warning).
        if low.stdout.contains("errno 24: Too many open files") {
          sawPassingErrors = true
        }
        if sawPassingErrors || low.stderr.contains("errno 24: Too many open files") {
          #expect(
            !FileManager.default.fileExists(atPath: replayFile),
            "\(limit): a listing with EMFILE in it was kept for replay")
        }
      }
    }
    #expect(sawPassingErrors, "no file met EMFILE in \(runs) runs")
    for _ in 0..<2 {
      // From the index, then replayed.
      let normal = try Running(arguments).wait()
      #expect(normal.exited && normal.status == 0)
      #expect(normal.stdout == plain.stdout)
      #expect(normal.stderr.isEmpty, "\(normal.stderr)")
    }
    #expect(FileManager.default.fileExists(atPath: replayFile))
  }

  @Test func groupsAndLookupKeepAndUseTheIndexWithTheSameOutput() async throws {
    let workspace = try await Workspace(links: 0)
    let library = workspace.library.path
    let index = ["--index", workspace.index.path]
    for command in [
      ["groups", "--format", "json", library], ["lookup", "DCIM/100APPLE/IMG_0200.HEIC", library],
    ] {
      let plain = try Running(command).wait()
      #expect(plain.exited && plain.status == 0, "\(command) \(plain.stderr)")
      for run in 0..<2 {
        let indexed = try Running(command + index).wait()
        #expect(indexed.exited && indexed.status == 0, "\(command) run \(run)")
        #expect(indexed.stdout == plain.stdout, "\(command) run \(run)")
        #expect(indexed.stderr.isEmpty, "\(indexed.stderr)")
      }
    }
    // The lookup stored what it read (the Live Photo's two files), for the next run.
    #expect(FileManager.default.fileExists(atPath: workspace.index.path))
    let thumbnail = try Running(
      ["thumbnail", "IMG_0001.JPG", library, "--output", "-"] + index
    ).wait()
    #expect(thumbnail.exited && thumbnail.status == 64, "\(thumbnail.stderr)")
  }

  @Test func aRunKilledMidwayLeavesAnIndexTheNextRunUses() async throws {
    let workspace = try await Workspace(links: 12000)
    let plain = try Running(["--format", "ndjson", workspace.library.path]).wait()
    #expect(plain.exited && plain.status == 0)
    // Killed once 1,500 assets are out: every asset out was read and queued for the
    // index, and at most one batch of them is not yet committed.
    let killed = try Running(
      ["--format", "ndjson", "--index", workspace.index.path, workspace.library.path],
      killAfterLines: 1500)
    let outcome = killed.wait()
    #expect(!outcome.exited && outcome.status == SIGKILL, "the run ended before the kill")

    let next = try Running([
      "--format", "ndjson", "--statistics", "--index", workspace.index.path,
      workspace.library.path,
    ]).wait()
    #expect(next.exited && next.status == 0)
    #expect(next.stdout == plain.stdout)
    #expect(!next.stderr.contains("warning"), "\(next.stderr)")
    let fromIndex = next.stderr.split(separator: " ").split(separator: "files-from-index")
      .dropFirst().first?.first.flatMap { Int($0) }
    #expect((fromIndex ?? 0) >= 1500 - 512, "\(next.stderr)")
    #expect((fromIndex ?? 0) < 12016, "\(next.stderr)")
  }
}
