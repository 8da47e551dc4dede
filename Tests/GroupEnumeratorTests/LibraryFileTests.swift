import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct LibraryFileTests {
  /// Opens `path` beneath `folder`'s root and returns what `body` read, or the problem.
  func read(
    _ folder: TemporaryFolder, _ path: LibraryPath,
    _ body: (LibraryFile) throws(AssetProblem) -> [UInt8] = { _ in [] }
  ) throws -> Result<[UInt8], AssetProblem> {
    let root = try LibraryRoot(path: folder.path)
    do {
      return .success(try LibraryFile.withOpened(root: root, path: path, body))
    } catch {
      return .failure(error)
    }
  }

  func problemCode(_ result: Result<[UInt8], AssetProblem>) -> AssetProblem.Code? {
    if case .failure(let problem) = result { return problem.code }
    return nil
  }

  @Test(arguments: [
    ("a.jpg", true), ("A/b/c.jpg", true), ("a//b", true), ("/a", true), ("a/", true),
    ("...", true), ("a/.b", true), ("..a", true), ("", false), ("/", false), ("//", false),
    (".", false), ("..", false), ("a/.", false), ("./a", false), ("a/../b", false),
    ("a/..", false), ("a\u{0}b", false),
  ])
  func onlyPathsBelowTheFolderAreOpened(path: String, isInside: Bool) {
    #expect(BeneathOpener.isInside(Array(path.utf8)) == isInside)
  }

  @Test func readsRangesAndStopsAtTheEnd() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Trips/Kyoto")
    try folder.write("Trips/Kyoto/a.jpg", (0..<100).map(UInt8.init))
    let root = try LibraryRoot(path: folder.path)
    try LibraryFile.withOpened(
      root: root, path: LibraryPath("Trips/Kyoto/a.jpg")
    ) { file throws(AssetProblem) in
      #expect(file.count == 100)
      #expect(try file.bytes(at: 0, length: 4) == [0, 1, 2, 3])
      #expect(try file.bytes(at: 10, length: 5) == [10, 11, 12, 13, 14])
      #expect(try file.bytes(at: 95, length: 10) == [95, 96, 97, 98, 99])
      #expect(try file.bytes(at: 99, length: Int.max) == [99])
      #expect(try file.bytes(at: 100, length: 1) == [])
      #expect(try file.bytes(at: Int.max, length: Int.max) == [])
      #expect(try file.bytes(at: -1, length: 5) == [])
      #expect(try file.bytes(at: 0, length: 0) == [])
      #expect(try file.bytes(at: 0, length: -3) == [])
      #expect(try file.bytes(at: 0, length: 1000).count == 100)
    }
  }

  @Test func aFileThatShrinksGivesShortReads() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", [UInt8](repeating: 7, count: 1000))
    let root = try LibraryRoot(path: folder.path)
    let absolute = folder.absolute("a.jpg")
    let got = try LibraryFile.withOpened(
      root: root, path: LibraryPath("a.jpg")
    ) { file throws(AssetProblem) in
      _ = truncate(absolute, 10)
      return (file.count, try file.bytes(at: 0, length: 1000), try file.bytes(at: 500, length: 10))
    }
    #expect(got.0 == 1000)
    #expect(got.1 == [UInt8](repeating: 7, count: 10))
    #expect(got.2 == [])
  }

  @Test func anEmptyFileOpensWithCountZero() throws {
    let folder = try TemporaryFolder()
    try folder.write("z.jpg", [])
    let result = try read(folder, LibraryPath("z.jpg")) { file throws(AssetProblem) in
      #expect(file.count == 0)
      return try file.bytes(at: 0, length: 64)
    }
    #expect(try result.get() == [])
  }

  @Test(.hangLimit)
  func aFIFOIsNotARegularFileAndNeverBlocks() throws {
    let folder = try TemporaryFolder()
    try folder.fifo("x.jpg")
    let result = try read(folder, LibraryPath("x.jpg"))
    #expect(problemCode(result) == .notRegularFile)
  }

  @Test func aFolderIsNotARegularFile() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("d.jpg")
    #expect(problemCode(try read(folder, LibraryPath("d.jpg"))) == .notRegularFile)
  }

  @Test func aSymbolicLinkIsNotFollowed() throws {
    let folder = try TemporaryFolder()
    try folder.write("real.jpg", SampleBytes.jpeg)
    try folder.symlink("link.jpg", to: "real.jpg")
    let result = try read(folder, LibraryPath("link.jpg"))
    #expect(problemCode(result) == .notRegularFile)
    if case .failure(let problem) = result {
      #expect(problem.message.contains("symbolic link"))
    }
  }

  @Test func aLinkedFolderOnThePathIsNotFollowed() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("real")
    try folder.write("real/a.jpg", SampleBytes.jpeg)
    try folder.symlink("linked", to: "real")
    #expect(try read(folder, LibraryPath("real/a.jpg")).get() == [])
    #expect(problemCode(try read(folder, LibraryPath("linked/a.jpg"))) == .notRegularFile)
  }

  @Test func theComponentFallbackFollowsNoLinkEither() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("real")
    try folder.write("real/a.jpg", SampleBytes.jpeg)
    try folder.symlink("linked", to: "real")
    try folder.symlink("real/b.jpg", to: "a.jpg")
    let root = try LibraryRoot(path: folder.path)
    let descriptor = try BeneathOpener.openFileByComponents(
      in: root.descriptor, relativePath: Array("real/a.jpg".utf8),
      displayPath: LibraryPath("real/a.jpg"))
    #expect(try descriptor.status().kind == .regular)
    descriptor.close()
    for path in ["linked/a.jpg", "real/b.jpg"] {
      #expect(throws: AssetProblem.self) {
        let leaked = try BeneathOpener.openFileByComponents(
          in: root.descriptor, relativePath: Array(path.utf8), displayPath: LibraryPath(path))
        leaked.close()
      }
    }
  }

  @Test func aDeletedFileHasVanished() throws {
    let folder = try TemporaryFolder()
    try folder.write("gone.jpg", SampleBytes.jpeg)
    try folder.remove("gone.jpg")
    let result = try read(folder, LibraryPath("gone.jpg"))
    #expect(problemCode(result) == .vanished)
  }

  @Test(arguments: ["../x.jpg", "a/../b.jpg", "./a.jpg", "", "/"])
  func pathsThatLeaveOrNameNoFileAreRefused(_ path: String) throws {
    let folder = try TemporaryFolder()
    #expect(problemCode(try read(folder, LibraryPath(path))) == .unreadable)
  }

  @Test func aNameThatIsNotUTF8Opens() throws {
    let folder = try TemporaryFolder()
    let name = Array("bad".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8)
    try folder.write(bytes: name, SampleBytes.jpeg)
    let result = try read(folder, LibraryPath(bytes: name)) { file throws(AssetProblem) in
      try file.bytes(at: 0, length: 3)
    }
    #expect(try result.get() == [0xFF, 0xD8, 0xFF])
  }
}
