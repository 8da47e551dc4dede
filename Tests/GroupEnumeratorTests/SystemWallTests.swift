import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The wrappers of `Library/System` the index, the watch and the picture cache call: each
/// does what its C function does, and a failure names that function and its `errno`.
@Suite struct SystemWallTests {
  // MARK: - Paths

  @Test func statusOfAPathFollowsALinkOrDescribesIt() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", Array("abc".utf8))
    try folder.symlink("link", to: "a.jpg")
    let followed = try FileSystem.status(atPath: folder.absolute("link"))
    #expect(followed.kind == .regular)
    #expect(followed.size == 3)
    let described = try FileSystem.status(atPath: folder.absolute("link"), followsLinks: false)
    #expect(described.kind == .symbolicLink)
    #expect(described.identity != followed.identity)
    #expect(throws: SystemCallError(function: "stat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.status(atPath: folder.absolute("missing"))
    }
    #expect(throws: SystemCallError(function: "lstat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.status(atPath: folder.absolute("missing"), followsLinks: false)
    }
  }

  @Test func linkCountCountsTheNamesOfAFile() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", Array("abc".utf8))
    #expect(try FileSystem.status(atPath: folder.absolute("a.jpg")).linkCount == 1)
    #expect(link(folder.absolute("a.jpg"), folder.absolute("b.jpg")) == 0)
    #expect(try FileSystem.status(atPath: folder.absolute("a.jpg")).linkCount == 2)
    let root = try FileDescriptor.open(folder.path, options: [.directory, .closeOnExec])
    defer { root.close() }
    #expect(try root.status(ofEntry: Array("b.jpg".utf8)).linkCount == 2)
  }

  @Test func makingAFolderSaysWhatIsInTheWay() throws {
    let folder = try TemporaryFolder()
    try FileSystem.makeFolder(atPath: folder.absolute("new"), permissions: 0o700)
    #expect(try FileSystem.status(atPath: folder.absolute("new")).kind == .directory)
    #expect(throws: SystemCallError(function: "mkdir", errno: .fileExists)) {
      try FileSystem.makeFolder(atPath: folder.absolute("new"), permissions: 0o700)
    }
    #expect(throws: SystemCallError(function: "mkdir", errno: .noSuchFileOrDirectory)) {
      try FileSystem.makeFolder(atPath: folder.absolute("missing/child"), permissions: 0o700)
    }
  }

  @Test func removingAFileRemovesOneNameAndNeverAFolder() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", Array("abc".utf8))
    try folder.makeFolder("sub")
    try FileSystem.removeFile(atPath: folder.absolute("a.jpg"))
    #expect(throws: SystemCallError(function: "stat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.status(atPath: folder.absolute("a.jpg"))
    }
    #expect(throws: SystemCallError(function: "unlink", errno: .noSuchFileOrDirectory)) {
      try FileSystem.removeFile(atPath: folder.absolute("a.jpg"))
    }
    #expect(throws: SystemCallError(function: "unlink", errno: Errno(rawValue: EISDIR))) {
      try FileSystem.removeFile(atPath: folder.absolute("sub"))
    }
    #expect(try FileSystem.status(atPath: folder.absolute("sub")).kind == .directory)
  }

  @Test func aCanonicalPathHasItsLinksAndDotsResolved() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("real/inner")
    try folder.symlink("linked", to: "real")
    let base = try FileSystem.canonicalPath(folder.path)
    #expect(base.first == UInt8(ascii: "/"))
    #expect(
      try FileSystem.canonicalPath(folder.absolute("linked/inner/./..")) == base
        + Array("/real".utf8))
    #expect(throws: SystemCallError(function: "realpath", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.canonicalPath(folder.absolute("linked/missing"))
    }
  }

  @Test func aStatusRecordIsTheCLibrarysOwnOfAPathOrOfALink() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", Array("abcd".utf8))
    try folder.symlink("link", to: "a.jpg")
    let followed = try FileSystem.statusRecord(atPath: folder.absolute("link"))
    #expect(followed.st_mode & S_IFMT == S_IFREG)
    #expect(followed.st_size == 4)
    let described = try FileSystem.statusRecord(
      atPath: folder.absolute("link"), followsLinks: false)
    #expect(described.st_mode & S_IFMT == S_IFLNK)
    #expect(
      FileStatus(described)
        == (try FileSystem.status(
          atPath: folder.absolute("link"),
          followsLinks: false)))
    #expect(throws: SystemCallError(function: "lstat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.statusRecord(atPath: folder.absolute("missing"), followsLinks: false)
    }
  }

  @Test func renamingReplacesTheOtherNameWhole() throws {
    let folder = try TemporaryFolder()
    try folder.write("new.tmp", Array("new".utf8))
    try folder.write("entry.png", Array("old, longer".utf8))
    let moved = try FileSystem.status(atPath: folder.absolute("new.tmp")).identity
    try FileSystem.rename(atPath: folder.absolute("new.tmp"), to: folder.absolute("entry.png"))
    let entry = try FileSystem.status(atPath: folder.absolute("entry.png"))
    #expect(entry.identity == moved)
    #expect(entry.size == 3)
    #expect(throws: SystemCallError(function: "stat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.status(atPath: folder.absolute("new.tmp"))
    }
    #expect(throws: SystemCallError(function: "rename", errno: .noSuchFileOrDirectory)) {
      try FileSystem.rename(atPath: folder.absolute("new.tmp"), to: folder.absolute("other"))
    }
    #expect(throws: SystemCallError(function: "rename", errno: .noSuchFileOrDirectory)) {
      try FileSystem.rename(
        atPath: folder.absolute("entry.png"), to: folder.absolute("missing/entry.png"))
    }
    #expect(try FileSystem.status(atPath: folder.absolute("entry.png")).size == 3)
  }

  // MARK: - Writing a new file

  @Test func aNewFileIsCreatedWrittenWholeAndGivenItsMode() throws {
    let folder = try TemporaryFolder()
    let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let file = try FileDescriptor.createNew(folder.absolute("new.png"), permissions: 0o600)
    do {
      defer { file.close() }
      try file.writeAll(bytes)
      try file.writeAll([])
      // The umask only takes bits away; fchmod sets them exactly.
      #expect(try file.statusRecord().st_mode & 0o777 & ~0o600 == 0)
      try file.setPermissions(0o604)
      #expect(try file.statusRecord().st_mode & 0o777 == 0o604)
    }
    let written = FileManager.default.contents(atPath: folder.absolute("new.png"))
    #expect(written.map { [UInt8]($0) } == bytes)
  }

  @Test func creatingANewFileNeverOpensWhatExists() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.png", Array("abc".utf8))
    try folder.symlink("link", to: "target")
    #expect(throws: SystemCallError(function: "open", errno: .fileExists)) {
      _ = try FileDescriptor.createNew(folder.absolute("a.png"), permissions: 0o600)
    }
    // A link is not followed, even to a name that does not exist yet.
    #expect(throws: SystemCallError(function: "open", errno: .fileExists)) {
      _ = try FileDescriptor.createNew(folder.absolute("link"), permissions: 0o600)
    }
    #expect(throws: SystemCallError(function: "stat", errno: .noSuchFileOrDirectory)) {
      _ = try FileSystem.status(atPath: folder.absolute("target"))
    }
    #expect(throws: SystemCallError(function: "open", errno: .noSuchFileOrDirectory)) {
      _ = try FileDescriptor.createNew(folder.absolute("missing/a.png"), permissions: 0o600)
    }
    #expect(try FileSystem.status(atPath: folder.absolute("a.png")).size == 3)
  }

  @Test func writingAndSettingAModeNameTheirFailures() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.png", Array("abc".utf8))
    let reading = try FileDescriptor.open(folder.absolute("a.png"), options: [.closeOnExec])
    defer { reading.close() }
    #expect(throws: SystemCallError(function: "write", errno: Errno(rawValue: EBADF))) {
      try reading.writeAll(Array("x".utf8))
    }
    let closed = FileDescriptor(rawValue: -1)
    #expect(throws: SystemCallError(function: "fchmod", errno: Errno(rawValue: EBADF))) {
      try closed.setPermissions(0o600)
    }
  }

  /// A non-blocking pipe takes what fits (a short write), then refuses the rest: the
  /// bytes that fit are in the pipe, and the failure is reported, not taken for success.
  @Test func aWriteThatCannotFinishFailsAfterWhatFit() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    try #require(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
    try #require(fcntl(ends[1], F_SETFL, O_NONBLOCK) == 0)
    let reading = FileDescriptor(rawValue: ends[0])
    let writing = FileDescriptor(rawValue: ends[1])
    defer {
      reading.close()
      writing.close()
    }
    // More than a pipe holds (64 KiB unless resized).
    let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    #expect(throws: SystemCallError(function: "write", errno: Errno(rawValue: EAGAIN))) {
      try writing.writeAll(bytes)
    }
    var read: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let got = try? buffer.withUnsafeMutableBytes({ try reading.read(into: $0) }), got > 0 {
      read += buffer[..<got]
    }
    #expect(!read.isEmpty)
    #expect(read.count < bytes.count)
    #expect(read[...] == bytes[..<read.count])
  }

  @Test func theProcessIdentifierIsThisProcesss() {
    #expect(CurrentProcess.identifier == ProcessInfo.processInfo.processIdentifier)
  }

  @Test func anErrnoReadsAsTheCLibrarysText() {
    #expect(Errno.noSuchFileOrDirectory.text == "No such file or directory")
    #expect(Errno.notDirectory.description == "errno \(ENOTDIR): Not a directory")
  }

  /// The default index's folder under a file: the warning names the file and why (the C
  /// library's text for `ENOTDIR`), and nothing is created.
  @Test func anIndexFolderThatCannotBeMadeIsNamedWithTheReason() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("library")
    try folder.write("file", Array("x".utf8))
    let root = try LibraryRoot(path: folder.absolute("library"))
    let result = IndexStore.userCacheFile(
      for: root, environment: ["XDG_CACHE_HOME": folder.absolute("file") + "/cache"])
    guard case .failure(let warning) = result else {
      Issue.record("the index folder under a file was accepted: \(result)")
      return
    }
    let canonical = String(decoding: try FileSystem.canonicalPath(folder.path), as: UTF8.self)
    #expect(
      warning.message
        == "The default index was not used: the folder '\(canonical)/file' cannot be created"
        + " (Not a directory).")
  }

  // MARK: - Descriptors without an offset

  @Test func aPipeIsWaitedOnThenReadFromItsOffset() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    try #require(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
    let reading = FileDescriptor(rawValue: ends[0])
    let writing = FileDescriptor(rawValue: ends[1])
    defer { reading.close() }
    #expect(!reading.waitUntilReadable(milliseconds: 0))
    #expect(throws: SystemCallError(function: "read", errno: Errno(rawValue: EAGAIN))) {
      var byte: UInt8 = 0
      _ = try withUnsafeMutableBytes(of: &byte) { try reading.read(into: $0) }
    }
    #expect(write(ends[1], "hi", 2) == 2)
    #expect(reading.waitUntilReadable(milliseconds: 10_000))
    var buffer = [UInt8](repeating: 0, count: 8)
    let got = try buffer.withUnsafeMutableBytes { try reading.read(into: $0) }
    #expect(Array(buffer[..<got]) == Array("hi".utf8))
    writing.close()
    // The writer gone, the end of the pipe reads as 0 bytes.
    #expect(try buffer.withUnsafeMutableBytes { try reading.read(into: $0) } == 0)
  }

  // MARK: - inotify

  @Test func inotifyNamesAFileCreatedAndWrittenInAWatchedFolder() throws {
    let folder = try TemporaryFolder()
    let inotify = try Inotify()
    let watched = try FileDescriptor.open(folder.path, options: [.directory, .closeOnExec])
    defer { watched.close() }
    let watch = try inotify.addWatch(folder: watched)
    #expect(try inotify.addWatch(folder: watched) == watch)
    try folder.write("new.jpg", Array("abc".utf8))
    var events: [InotifyEvent] = []
    while !events.contains(where: { $0.has(.closedAfterWriting) }),
      inotify.waitForEvents(milliseconds: 10_000)
    {
      events += inotify.readEvents()
    }
    let named = events.filter { $0.name == Array("new.jpg".utf8) }
    #expect(named.allSatisfy { $0.watch == watch && !$0.isFolder })
    #expect(named.contains { $0.has(.created) })
    #expect(named.contains { $0.has(.closedAfterWriting) })
    try folder.makeFolder("sub")
    #expect(inotify.waitForEvents(milliseconds: 10_000))
    #expect(
      inotify.readEvents().contains {
        $0.name == Array("sub".utf8) && $0.isFolder && $0.has(.created)
      })
    inotify.removeWatch(watch)
    #expect(inotify.waitForEvents(milliseconds: 10_000))
    #expect(inotify.readEvents().contains { $0.watch == watch && $0.has(.watchRemoved) })
  }

  @Test func aWatchLimitRefusesTheNextFolderAsTheKernelWould() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("a")
    try folder.makeFolder("b")
    let inotify = try Inotify(watchLimit: 1)
    let first = try FileDescriptor.open(folder.absolute("a"), options: [.directory, .closeOnExec])
    defer { first.close() }
    let second = try FileDescriptor.open(
      folder.absolute("b"), options: [.directory, .closeOnExec])
    defer { second.close() }
    let watch = try inotify.addWatch(folder: first)
    #expect(try inotify.addWatch(folder: first) == watch)
    #expect(throws: SystemCallError(function: "inotify_add_watch", errno: .noSpace)) {
      _ = try inotify.addWatch(folder: second)
    }
    inotify.removeWatch(watch)
    _ = try inotify.addWatch(folder: second)
  }
}
