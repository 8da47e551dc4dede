import Foundation
import Glibc
import GroupEnumerator
import Synchronization
import Testing

@testable import Demo
@testable import GroupEnumeratorCore

@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path)
      && FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs the built Demo next to the test bundle and Fixtures/Library"))
struct DemoProcessTests {
  @Test(.hangLimit)
  func headOneMakesTheDemoStopQuietly() throws {
    let library = try LibraryCopy()
    let photo = try Data(
      contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG"))
    // Enough assets that the JSON (about 1 KB each) is far larger than a pipe holds.
    try FileManager.default.createDirectory(
      atPath: library.path + "/Many", withIntermediateDirectories: false)
    for index in 0..<300 {
      try photo.write(to: URL(fileURLWithPath: library.path + "/Many/\(index).jpg"))
    }
    let process = Process()
    process.executableURL = demoExecutable
    process.arguments = ["--format", "json", library.path]
    process.environment = ["SWIFT_BACKTRACE": "enable=no"]
    let (out, err) = (Pipe(), Pipe())
    process.standardOutput = out
    process.standardError = err
    try SpawnFence.exclusive { try process.run() }
    // `head -1`: read one line, then close the pipe.
    var line: [UInt8] = []
    var byte: UInt8 = 0
    let reader = out.fileHandleForReading.fileDescriptor
    while read(reader, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
    try out.fileHandleForReading.close()
    process.waitUntilExit()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    #expect(line == Array("[".utf8))
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 141)
    #expect(errors.isEmpty, "\(String(decoding: errors, as: UTF8.self))")
  }

  @Test(.hangLimit)
  func tooFewDescriptorsGiveAnErrorOrProblemsNeverACrash() throws {
    let library = try LibraryCopy()
    let photo = try Data(
      contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG"))
    var deep = library.path
    for level in 1...12 {
      deep += "/d\(level)"
      try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: false)
      try photo.write(to: URL(fileURLWithPath: deep + "/x\(level).jpg"))
    }
    let all = 15 + 12  // Fixtures/README.md: 15 assets, plus one per level.
    var sawDescriptorProblems = false
    for limit in [3, 4, 5, 6, 8, 10, 12, 13, 14, 15, 16, 18, 20, 24, 64] {
      let outcome = try run(
        URL(fileURLWithPath: "/usr/bin/prlimit"),
        ["--nofile=\(limit):\(limit)", demoExecutable.path, "--format", "json", library.path])
      let context = "ulimit -n \(limit): \(outcome.status) \(outcome.stderr)"
      // Folders that could not be opened are left out of the JSON and reported on stderr.
      #expect(outcome.exited, "\(context)")
      // 127: the dynamic loader itself could not open the shared libraries.
      #expect([0, 1, 127].contains(outcome.status), "\(context)")
      if outcome.status == 1 {
        #expect(outcome.stderr.hasPrefix("Error: "), "\(context)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "\(context)")
      }
      guard outcome.status == 0 else { continue }
      let warnings = outcome.stderr.split(separator: "\n")
      #expect(warnings.allSatisfy { $0.hasPrefix("warning: Folder '") }, "\(context)")
      let assets = try #require(
        try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
      let messages = assets.flatMap { ($0["problems"] as? [String]) ?? [] }
      let expectedProblems = Set(["Broken/broken.jpg", "Broken/empty.jpg"])
      for asset in assets {
        let path = asset["path"] as? String ?? ""
        let messages = (asset["problems"] as? [String]) ?? []
        #expect(
          expectedProblems.contains(path) || messages.allSatisfy { $0.contains("errno 24") },
          "\(context) \(path) \(messages)")
      }
      // Files are opened only after the walk has closed its folders, so a low limit
      // mostly costs folders (left out) rather than files (problems): either shows it bit.
      if messages.contains(where: { $0.contains("errno 24") }) || assets.count < all {
        sawDescriptorProblems = true
      }
      // A folder left out is never silent: it has its warning line.
      #expect(assets.count == all || !warnings.isEmpty, "\(context)")
      if limit == 64 {
        #expect(assets.count == all)
        #expect(!messages.contains { $0.contains("errno 24") })
      }
    }
    #expect(sawDescriptorProblems, "no limit made a folder or a file fail with EMFILE")
  }

  @Test(.hangLimit)
  func aFullRunChangesNothingInTheLibrary() async throws {
    let library = try LibraryCopy()
    let base = library.path
    mkfifo(base + "/pipe.jpg", 0o644)
    symlink("/etc", base + "/outside")
    symlink("IMG_0001.JPG", base + "/link.jpg")
    let descriptor = create(Array(base.utf8) + Array("/bad".utf8) + [0xFF] + Array(".jpg".utf8))
    #expect(descriptor >= 0)
    close(descriptor)
    let before = try snapshot(base)
    #expect(before.count > 20)
    sleep(1)  // so that a write would move mtime/ctime even on coarse clocks
    for arguments in [
      ["--format", "json", base], ["--format", "csv", base], [base], ["groups", base],
    ] {
      let outcome = try run(demoExecutable, arguments)
      #expect(outcome.status == 0, "\(arguments) \(outcome.stderr)")
    }
    let listed = try run(demoExecutable, ["--format", "json", base])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    for asset in assets {
      let url = try #require(asset["url"] as? String)
      let outcome = try run(demoExecutable, ["lookup", url, "--library", base])
      #expect(outcome.status == 0, "\(url)")
    }
    #expect(try snapshot(base) == before)
  }

  @Test(.hangLimit)
  func aNameThatIsNotUTF8RoundTripsThroughLookup() async throws {
    let scratch = try TemporaryFolder("DemoProcessTests")
    let folder = scratch.path
    let photo = try [UInt8](
      Data(contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG")))
    let name = Array(folder.utf8) + Array("/bad".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8)
    let descriptor = create(name)
    try #require(descriptor >= 0)
    _ = photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    var stdout = TextBuffer()
    var stderr = TextBuffer()
    let status = await DemoCommand.run(
      arguments: ["--format", "json", folder], stdout: &stdout, stderr: &stderr)
    #expect(status == 0)
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(stdout.text.utf8)) as? [[String: Any]])
    let asset = try #require(assets.first)
    #expect(assets.count == 1)
    #expect(asset["path"] as? String == "bad%FF%FE.jpg")
    let url = try #require(asset["url"] as? String)
    var object = TextBuffer()
    let lookup = await DemoCommand.run(
      arguments: ["lookup", url, "--library", folder], stdout: &object, stderr: &stderr)
    #expect(lookup == 0)
    #expect(stderr.text.isEmpty)
    let found = try #require(
      try JSONSerialization.jsonObject(with: Data(object.text.utf8)) as? [String: Any])
    #expect(found["path"] as? String == "bad%FF%FE.jpg")
    #expect(found["location"] != nil && !(found["location"] is NSNull))
  }
}

/// One entry of a library snapshot: everything a write, chmod or rename would change.
struct Entry: Hashable {
  var path: [UInt8]
  var size: Int64
  var modified: Int64
  var changed: Int64
  var inode: UInt64
  var mode: UInt32
}

/// Every entry under `root` (links not followed), by path bytes.
func snapshot(_ root: String) throws -> [Entry] {
  var entries: [Entry] = []
  var pending: [[UInt8]] = [Array(root.utf8)]
  while let path = pending.popLast() {
    var status = stat()
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    guard lstat(cPath, &status) == 0 else { throw POSIXError(.ENOENT) }
    entries.append(
      Entry(
        path: path, size: Int64(status.st_size),
        modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
        changed: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec),
        inode: UInt64(status.st_ino), mode: UInt32(status.st_mode)))
    guard status.st_mode & S_IFMT == S_IFDIR, let stream = opendir(cPath) else { continue }
    defer { closedir(stream) }
    while let entry = readdir(stream) {
      let name = DirectoryStream.name(of: entry)
      if name != [0x2E], name != [0x2E, 0x2E] { pending.append(path + [0x2F] + name) }
    }
  }
  return entries.sorted { $0.path.lexicographicallyPrecedes($1.path) }
}

/// Creates the file whose path is `bytes` for writing. The corresponding C function is
/// `open`.
private func create(_ bytes: [UInt8]) -> Int32 {
  open(bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
}
