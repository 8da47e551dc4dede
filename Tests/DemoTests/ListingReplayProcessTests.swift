import Foundation
import Glibc
import GroupEnumerator
import Synchronization
import Testing

@testable import Demo

/// A temporary folder holding `Library` (a copy of `Fixtures/Library`) and, beside it, the
/// index `index.sqlite` and its replay file `index.sqlite-listing`.
private final class ReplayWorkspace {
  let temporary: TemporaryFolder
  var folder: String { temporary.path }
  var library: String { temporary.absolute("Library") }
  var index: String { temporary.absolute("index.sqlite") }
  var replayFile: String { index + ListingReplay.suffix }

  init() async throws {
    temporary = try TemporaryFolder("ListingReplayProcessTests")
    try temporary.copyLibrary(as: "Library")
    try await ReplayWorkspace.settle()
  }

  /// Waits until the tree's last change is older than the time a fingerprint needs.
  static func settle() async throws { try await Task.sleep(for: .milliseconds(200)) }

  /// `Demo --format <format> --index index.sqlite Library` plus `extra`.
  func arguments(_ format: String = "json", _ extra: [String] = []) -> [String] {
    ["--format", format, "--index", index] + extra + [library]
  }

  /// Runs the Demo with `arguments` and `environment`.
  func demo(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
    try run(demoExecutable, arguments, environment: environment, in: folder)
  }

  /// Runs the Demo with the index replaced by a text file, which a run that reads the
  /// library refuses with a warning, and a replay never opens: whether the output was
  /// replayed shows in standard error. The text file is removed afterwards, so the next
  /// run makes a new index.
  func observed(
    _ arguments: [String], environment: [String: String] = [:]
  ) throws -> (replayed: Bool, outcome: Outcome) {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(index + suffix) }
    try Data("not an index\n".utf8).write(to: URL(fileURLWithPath: index))
    defer { unlink(index) }
    let outcome = try demo(arguments, environment: environment)
    return (!outcome.stderr.contains("was not used"), outcome)
  }

  /// Records the listing of `arguments` (a run with a new index) and checks that the next
  /// run replays it.
  func record(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(index + suffix) }
    let recorded = try demo(arguments, environment: environment)
    #expect(recorded.exited && recorded.status == 0, "\(recorded.stderr)")
    let (replayed, replay) = try observed(arguments, environment: environment)
    #expect(replayed, "not replayed: \(replay.stderr)")
    #expect(replay.stdout == recorded.stdout)
    return recorded
  }

  /// Sets the modification time of `relative` (in the library) to `seconds`.
  func setModificationTime(_ relative: String, seconds: Int) {
    var times = [
      timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, library + "/" + relative, &times, 0) == 0)
  }
}

/// `Demo --index F` as separate processes: the listing it records in `F-listing`, replayed
/// when nothing it depends on changed, and never when something did.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct ListingReplayProcessTests {
  @Test(arguments: ["json", "csv", "ndjson"])
  func aReplayedListingIsByteIdenticalToAPlainRun(format: String) async throws {
    let workspace = try await ReplayWorkspace()
    let plain = try workspace.demo(["--format", format, workspace.library])
    #expect(plain.exited && plain.status == 0)
    let recorded = try workspace.record(workspace.arguments(format))
    #expect(recorded.stdout == plain.stdout)
    var status = stat()
    #expect(stat(workspace.replayFile, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    let (replayed, again) = try workspace.observed(workspace.arguments(format))
    #expect(replayed)
    #expect(again.stdout == plain.stdout)
    #expect(again.stderr.isEmpty, "\(again.stderr)")
    // Written to a file rather than a pipe, the replay is the same bytes.
    let output = workspace.temporary.absolute("output")
    let shell = try run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "\"$0\" \"$@\" > '\(output)'", demoExecutable.path] + workspace.arguments(format))
    #expect(shell.exited && shell.status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(plain.stdout.utf8))
    // Appended to a file (`>>`: O_APPEND, which `sendfile` refuses), it is written by the
    // fallback, after what the file held.
    let appended = try run(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "\"$0\" \"$@\" >> '\(output)'", demoExecutable.path] + workspace.arguments(format))
    #expect(appended.exited && appended.status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: output)) == Data((plain.stdout + plain.stdout).utf8)
    )
  }

  /// Each change to the tree, and each change of what the output depends on besides it,
  /// makes the next run read the library: its output is the fresh one.
  @Test func aChangedLibraryOrCommandIsReadAgain() async throws {
    let workspace = try await ReplayWorkspace()
    let library = workspace.library
    let changes: [(String, () throws -> Void)] = [
      ("touch", { workspace.setModificationTime("IMG_0002.jpg", seconds: 1_600_000_000) }),
      (
        "one byte, size and time kept",
        {
          var status = stat()
          let path = library + "/Trips/Kyoto 2019/trip-01.jpg.xmp"
          #expect(stat(path, &status) == 0)
          var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
          let place = try #require(bytes.lastIndex(of: UInt8(ascii: ">")))
          bytes.insert(UInt8(ascii: " "), at: place)
          bytes.remove(at: place + 1)
          try Data(bytes).write(to: URL(fileURLWithPath: path))
          var times = [status.st_atim, status.st_mtim]
          #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
      ),
      ("a file added", { try workspace.temporary.add("IMG_0001.JPG", as: "Library/Added.JPG") }),
      ("a file removed", { try workspace.temporary.remove("Library/Added.JPG") }),
      (
        "a file renamed",
        { #expect(rename(library + "/IMG_0002.jpg", library + "/IMG_0003.jpg") == 0) }
      ),
      ("a folder added", { try workspace.temporary.makeFolder("Library/Empty") }),
      (
        "a folder renamed",
        { #expect(rename(library + "/Screenshots", library + "/Screens") == 0) }
      ),
      (
        "a sidecar added",
        {
          let xmp = try Data(
            contentsOf: URL(fileURLWithPath: library + "/Trips/Kyoto 2019/trip-01.jpg.xmp"))
          try xmp.write(to: URL(fileURLWithPath: library + "/Trips/Kyoto 2019/trip-02.jpg.xmp"))
        }
      ),
      ("a hidden file added", { try workspace.temporary.write("Library/.notes", [1, 2, 3]) }),
    ]
    for (name, change) in changes {
      _ = try workspace.record(workspace.arguments())
      try change()
      try await ReplayWorkspace.settle()
      let fresh = try workspace.demo(["--format", "json", library])
      let (replayed, outcome) = try workspace.observed(workspace.arguments())
      #expect(!replayed, "\(name): replayed")
      #expect(outcome.stdout == fresh.stdout, "\(name)")
    }
    // What the output depends on besides the tree.
    let recorded = try workspace.record(workspace.arguments())
    for (name, arguments, environment) in [
      ("another filter", workspace.arguments("json", ["--filter", "photos"]), [:]),
      ("another language", workspace.arguments("json", ["--lang", "ja"]), [:]),
      ("LANG", workspace.arguments(), ["LANG": "de_DE.UTF-8"]),
      ("TZ", workspace.arguments(), ["TZ": "Asia/Tokyo"]),
      ("GROUPENUMERATOR_*", workspace.arguments(), ["GROUPENUMERATOR_COLD_READERS": "2"]),
    ] as [(String, [String], [String: String])] {
      let (replayed, _) = try workspace.observed(arguments, environment: environment)
      #expect(!replayed, "\(name): replayed")
    }
    // The recording of the plain command is still there and still replayed.
    let (replayed, outcome) = try workspace.observed(workspace.arguments())
    #expect(replayed)
    #expect(outcome.stdout == recorded.stdout)
  }

  /// A replay file that is damaged, cut short, not a file or a link is no replay: the run
  /// reads the library, prints the right listing, does not hang, and (where a file can
  /// take its place) writes a good replay file again.
  @Test(.hangLimit) func aDamagedOrForeignReplayFileIsIgnoredAndReplaced() async throws {
    let workspace = try await ReplayWorkspace()
    let recorded = try workspace.record(workspace.arguments())
    let good = try Data(contentsOf: URL(fileURLWithPath: workspace.replayFile))
    let keep = workspace.temporary.absolute("kept-listing")
    try good.write(to: URL(fileURLWithPath: keep))
    var flipped = good
    flipped[flipped.count / 2] ^= 0x20
    let damages: [(String, () throws -> Void)] = [
      ("a byte flipped", { try flipped.write(to: URL(fileURLWithPath: workspace.replayFile)) }),
      (
        "cut short",
        { try good.prefix(good.count - 7).write(to: URL(fileURLWithPath: workspace.replayFile)) }
      ),
      ("empty", { try Data().write(to: URL(fileURLWithPath: workspace.replayFile)) }),
      (
        "foreign",
        {
          try Data(repeating: 0x41, count: 4096).write(
            to: URL(fileURLWithPath: workspace.replayFile))
        }
      ),
      (
        "a symbolic link to a good one",
        {
          unlink(workspace.replayFile)
          #expect(symlink(keep, workspace.replayFile) == 0)
        }
      ),
      (
        "a FIFO",
        {
          unlink(workspace.replayFile)
          #expect(mkfifo(workspace.replayFile, 0o600) == 0)
        }
      ),
    ]
    for (name, damage) in damages {
      try damage()
      let (replayed, outcome) = try workspace.observed(workspace.arguments())
      #expect(!replayed, "\(name): replayed")
      #expect(outcome.exited && outcome.status == 0, "\(name)")
      #expect(outcome.stdout == recorded.stdout, "\(name)")
      // The next run with a usable index writes a good replay file in its place.
      let rewritten = try workspace.record(workspace.arguments())
      #expect(rewritten.stdout == recorded.stdout, "\(name)")
      var status = stat()
      #expect(lstat(workspace.replayFile, &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: keep)) == good)
    // A folder in its place stays; the listing is printed and nothing hangs.
    unlink(workspace.replayFile)
    #expect(mkdir(workspace.replayFile, 0o700) == 0)
    for suffix in ["", "-wal", "-shm"] { unlink(workspace.index + suffix) }
    let first = try workspace.demo(workspace.arguments())
    let second = try workspace.demo(workspace.arguments())
    for outcome in [first, second] {
      #expect(outcome.exited && outcome.status == 0 && outcome.stderr.isEmpty)
      #expect(outcome.stdout == recorded.stdout)
    }
    var status = stat()
    #expect(lstat(workspace.replayFile, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
    let names = try FileManager.default.contentsOfDirectory(atPath: workspace.folder)
    #expect(!names.contains { $0.contains(".new") || $0.hasPrefix("index.sqlite-listing.") })
  }

  /// An index named like the replay file of another (`--index index.sqlite-listing`) is
  /// never replaced by a replay file.
  @Test func anIndexWhereTheReplayFileGoesIsLeftAlone() async throws {
    let workspace = try await ReplayWorkspace()
    let other = try workspace.demo(
      ["--format", "csv", "--index", workspace.replayFile, workspace.library])
    #expect(other.exited && other.status == 0 && other.stderr.isEmpty)
    let database = try Data(contentsOf: URL(fileURLWithPath: workspace.replayFile))
    #expect(database.starts(with: Array("SQLite format 3\0".utf8)))
    let outcome = try workspace.demo(workspace.arguments())
    #expect(outcome.exited && outcome.status == 0 && outcome.stderr.isEmpty)
    #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.replayFile)) == database)
  }

  /// An index inside the library is refused; no replay file is written there either.
  @Test func noReplayFileIsEverWrittenInsideTheLibrary() async throws {
    let workspace = try await ReplayWorkspace()
    let inside = workspace.library + "/Trips/index.sqlite"
    for _ in 0..<2 {
      let outcome = try workspace.demo(["--format", "json", "--index", inside, workspace.library])
      #expect(outcome.exited && outcome.status == 0)
      #expect(outcome.stderr.contains("it is inside the library"))
    }
    let names = try FileManager.default.subpathsOfDirectory(atPath: workspace.library)
    #expect(!names.contains { $0.contains("index.sqlite") }, "\(names)")
  }

  /// The warnings a listing printed (a folder nested too deep to read) are printed again
  /// by its replay, with the same output and status.
  @Test func warningsAndTheExitStatusAreReplayed() async throws {
    let workspace = try await ReplayWorkspace()
    try workspace.temporary.makeFolder(
      "Library/" + Array(repeating: "d", count: 258).joined(separator: "/"))
    try await ReplayWorkspace.settle()
    let recorded = try workspace.record(workspace.arguments("ndjson"))
    #expect(recorded.stderr.contains("nested more than 256 folders deep"), "\(recorded.stderr)")
    let (replayed, outcome) = try workspace.observed(workspace.arguments("ndjson"))
    #expect(replayed)
    #expect(outcome.status == 0)
    #expect(outcome.stdout == recorded.stdout)
    #expect(outcome.stderr == recorded.stderr)
  }

  /// A movie whose creation time lies more than a year ahead gets a problem that depends
  /// on the day the library is read: such a listing is never recorded.
  @Test func aListingThatDependsOnTodaysDateIsNotRecorded() async throws {
    let workspace = try await ReplayWorkspace()
    var movie = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: workspace.library + "/Videos/clip.mp4")))
    let header = try #require(
      movie.indices.first { movie[$0...].starts(with: Array("mvhd".utf8)) })
    // Version 0: four bytes of version and flags, then the creation time in seconds since
    // 1904, here in 2040.
    movie.replaceSubrange((header + 8)..<(header + 12), with: [0xFF, 0xFF, 0xFF, 0xF0])
    try workspace.temporary.write("Library/Videos/future.mp4", movie)
    try await ReplayWorkspace.settle()
    let first = try workspace.demo(workspace.arguments())
    #expect(first.stdout.contains("more than a year from now"))
    var status = stat()
    #expect(lstat(workspace.replayFile, &status) != 0)
    // Without that movie the listing is recorded.
    try workspace.temporary.remove("Library/Videos/future.mp4")
    try await ReplayWorkspace.settle()
    _ = try workspace.record(workspace.arguments())
  }

  /// Names with a line break or bytes that are not UTF-8 are replayed as read, and a
  /// rename of one is seen.
  @Test func hostileNamesAreReplayedAndTheirRenamesSeen() async throws {
    let workspace = try await ReplayWorkspace()
    let jpeg = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: workspace.library + "/IMG_0001.JPG")))
    try workspace.temporary.write("Library/line\nbreak.jpg", jpeg)
    try workspace.temporary.write(
      bytes: Array("Library/".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8), jpeg)
    try await ReplayWorkspace.settle()
    let plain = try workspace.demo(["--format", "csv", workspace.library])
    let recorded = try workspace.record(workspace.arguments("csv"))
    #expect(recorded.stdout == plain.stdout)
    let old = Array((workspace.library + "/").utf8) + [0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67, 0]
    let new = Array((workspace.library + "/").utf8) + [0xFF, 0xFD, 0x2E, 0x6A, 0x70, 0x67, 0]
    let renamed = old.withUnsafeBufferPointer { from in
      new.withUnsafeBufferPointer { to in
        from.withMemoryRebound(to: CChar.self) { from in
          to.withMemoryRebound(to: CChar.self) { to in rename(from.baseAddress, to.baseAddress) }
        }
      }
    }
    #expect(renamed == 0)
    try await ReplayWorkspace.settle()
    let (replayed, _) = try workspace.observed(workspace.arguments("csv"))
    #expect(!replayed)
  }

  /// A reader that goes away in the middle of a replay ends it as it ends a listing: 141,
  /// quietly, at once.
  @Test(.hangLimit) func aClosedPipeEndsAReplayWith141() async throws {
    let workspace = try await ReplayWorkspace()
    let many = workspace.library + "/Many"
    #expect(mkdir(many, 0o755) == 0)
    for number in 0..<1500 {
      #expect(link(workspace.library + "/IMG_0001.JPG", many + "/IMG_\(number).JPG") == 0)
    }
    try await ReplayWorkspace.settle()
    _ = try workspace.record(workspace.arguments())
    let quoted = workspace.arguments().map { "'\($0)'" }.joined(separator: " ")
    let outcome = try run(
      URL(fileURLWithPath: "/bin/bash"),
      ["-c", "set -o pipefail; '\(demoExecutable.path)' \(quoted) | head -c 100 > /dev/null"])
    #expect(outcome.exited && outcome.status == 141, "\(outcome.status) \(outcome.stderr)")
    #expect(outcome.stderr.isEmpty)
  }
}

/// The tree's fingerprint on its own.
struct TreeFingerprintTests {
  private func fingerprint(
    _ folder: String, budget: TreeFingerprint.Budget = .init()
  ) -> TreeFingerprint? {
    let root = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { close(root) }
    return TreeFingerprint.take(root: root, budget: budget)?.fingerprint
  }

  @Test func aTrippedBudgetTakesNoFingerprint() throws {
    let library = try TemporaryFolder("TreeFingerprintTests")
    try library.copyLibrary(as: "Library")
    let path = library.absolute("Library")
    let whole = try #require(fingerprint(path))
    // Every entry `find` lists, the root included.
    #expect(whole.entries == 35)
    #expect(fingerprint(path) == whole)
    #expect(fingerprint(path, budget: .init(entries: 33, depth: 300)) == nil)
    // `Trips/Kyoto 2019/Day 2` is three folders deep.
    #expect(fingerprint(path, budget: .init(entries: 1_000_000, depth: 2)) == nil)
    #expect(fingerprint(path, budget: .init(entries: 34, depth: 3)) == whole)
  }

  @Test func anAbandonedWalkTakesNoFingerprint() throws {
    let library = try TemporaryFolder("TreeFingerprintTests")
    try library.copyLibrary(as: "Library")
    let root = open(library.absolute("Library"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { close(root) }
    let asked = Atomic(0)
    let abandoned = TreeFingerprint.take(
      root: root, isAbandoned: { asked.add(1, ordering: .relaxed).newValue > 0 })
    #expect(abandoned == nil)
    let askedOnce = asked.load(ordering: .relaxed)
    #expect(askedOnce >= 1)
    // Asked before each folder, and never abandoned: the whole fingerprint.
    asked.store(0, ordering: .relaxed)
    let kept = TreeFingerprint.take(
      root: root,
      isAbandoned: {
        asked.add(1, ordering: .relaxed); return false
      })
    #expect(kept?.fingerprint == TreeFingerprint.take(root: root)?.fingerprint)
    let askedEach = asked.load(ordering: .relaxed)
    #expect(askedEach >= 11)
  }

  @Test func everyKindOfChangeChangesTheFingerprint() throws {
    let library = try TemporaryFolder("TreeFingerprintTests")
    try library.copyLibrary(as: "Library")
    let path = library.absolute("Library")
    var seen = [try #require(fingerprint(path))]
    let changes: [() throws -> Void] = [
      { try library.write("Library/new.txt", [1]) },
      { try library.write("Library/new.txt", [2]) },
      { #expect(rename(path + "/new.txt", path + "/new2.txt") == 0) },
      { try library.setMode("Library/new2.txt", 0o600) },
      { try library.symlink("Library/link", to: "/etc/passwd") },
      { try library.makeFolder("Library/Videos/Sub") },
      { try library.remove("Library/new2.txt") },
    ]
    for (number, change) in changes.enumerated() {
      try change()
      let next = try #require(fingerprint(path))
      #expect(!seen.contains(next), "change \(number)")
      seen.append(next)
    }
  }
}

/// A replay file on its own: recorded with a key of the test's, opened, written out.
struct StoredListingTests {
  private let key = Array("a key of the test's".utf8)

  /// A replay file at `path` holding `output` and `errors`.
  private func record(_ output: [UInt8], errors: String, at path: String) throws {
    var recording = try #require(
      ListingRecording(
        path: path, key: key, fingerprint: TreeFingerprint(first: 1, second: 2, entries: 3)))
    output.withUnsafeBufferPointer { recording.append($0) }
    recording.finish(status: 0, errors: errors, keep: true)
  }

  /// The output checked in chunks, then sent from the file to a file descriptor, or read
  /// and written by a stream that cannot send; the same bytes either way.
  @Test func aCheckedOutputIsWrittenWholeEitherWay() throws {
    let folder = try TemporaryFolder("StoredListingTests")
    let path = folder.absolute("listing")
    let output = (0..<3_000_000).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
    try record(output, errors: "warning: one\n", at: path)
    let stored = try #require(StoredListing(path: path, key: key))
    defer { stored.close() }
    #expect(stored.errors == "warning: one\n")
    #expect(stored.checkOutput())
    #expect(stored.checkOutputAhead()?.value() == true)
    let outPath = folder.absolute("out")
    let out = open(outPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    try #require(out >= 0)
    var stream = FileDescriptorStream(descriptor: out, capacity: 64 * 1024)
    #expect(stored.writeOutput(to: &stream))
    close(out)
    #expect(try Data(contentsOf: URL(fileURLWithPath: outPath)) == Data(output))
    var text = ""
    #expect(stored.writeOutput(to: &text))
    #expect(Array(text.utf8) == output)
    // A full device (which cannot take `sendfile`: the bytes are written) fails the
    // stream, for the caller to report (74); the file itself was fine.
    let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
    try #require(full >= 0)
    defer { close(full) }
    var toFull = FileDescriptorStream(descriptor: full, capacity: 64 * 1024)
    #expect(stored.writeOutput(to: &toFull))
    #expect(toFull.failure == ENOSPC)
  }

  /// A byte written into the file in place after it was opened (another program: the
  /// Demo only ever replaces it) fails the check, or, once checked, the write.
  @Test func aFileWrittenInPlaceIsNotTakenAsChecked() throws {
    let folder = try TemporaryFolder("StoredListingTests")
    let path = folder.absolute("listing")
    let output = Array(repeating: UInt8(ascii: "x"), count: 200_000)
    try record(output, errors: "", at: path)
    // Opened long enough after it was written for the change time to move.
    usleep(20_000)
    let stored = try #require(StoredListing(path: path, key: key))
    defer { stored.close() }
    #expect(stored.checkOutput())
    let writer = open(path, O_WRONLY | O_CLOEXEC)
    try #require(writer >= 0)
    let offset = off_t(stored.outputOffset + 1000)
    #expect(pwrite(writer, "x", 1, offset) == 1)
    close(writer)
    #expect(stored.checkOutput())
    #expect(!stored.isUnchanged)
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    try #require(null >= 0)
    defer { close(null) }
    var stream = FileDescriptorStream(descriptor: null, capacity: 64 * 1024)
    #expect(!stored.writeOutput(to: &stream))
    // A different byte fails the checksum itself.
    let changer = open(path, O_WRONLY | O_CLOEXEC)
    try #require(changer >= 0)
    #expect(pwrite(changer, "y", 1, offset) == 1)
    close(changer)
    #expect(!stored.checkOutput())
  }
}
