import Foundation
import Glibc
import GroupEnumerator
import Testing

@testable import Demo

/// How `lookup` and `thumbnail` turn a path into a path inside the library, on real
/// folders (links included).
@Suite struct AssetLocationTests {
  /// `<tmp>/AssetLocationTests-<UUID>/{Library/{a.jpg, Album/b.jpg, link.jpg -> a.jpg},
  /// outside.jpg, LinkToLibrary -> Library}`, removed with the value.
  private final class Layout {
    let folder: TemporaryFolder
    var base: String { folder.path }
    var root: String { base + "/Library" }

    init() throws {
      folder = try TemporaryFolder("AssetLocationTests")
      let manager = FileManager.default
      try manager.createDirectory(
        atPath: base + "/Library/Album", withIntermediateDirectories: true)
      for file in ["Library/a.jpg", "Library/Album/b.jpg", "outside.jpg"] {
        try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/" + file))
      }
      try manager.createSymbolicLink(
        atPath: base + "/Library/link.jpg", withDestinationPath: "a.jpg")
      try manager.createSymbolicLink(
        atPath: base + "/LinkToLibrary", withDestinationPath: "Library")
    }
  }

  private func resolved(
    _ path: String, root: String, from directory: String? = nil
  ) throws(AssetLocation.Failure) -> String {
    try AssetLocation.relativePath(
      of: Array(path.utf8), root: Array(root.utf8),
      workingDirectory: directory.map { Array($0.utf8) }
    ).escaped
  }

  @Test func pathsRelativeToTheRootWinOverTheWorkingDirectory() throws {
    let layout = try Layout()
    #expect(try resolved("a.jpg", root: layout.root, from: "/") == "a.jpg")
    #expect(try resolved("Album/../a.jpg", root: layout.root, from: "/") == "a.jpg")
    #expect(try resolved("./Album//b.jpg", root: layout.root, from: "/") == "Album/b.jpg")
    // Not under the root, but under the working directory, inside the root.
    #expect(try resolved("b.jpg", root: layout.root, from: layout.root + "/Album") == "Album/b.jpg")
    #expect(try resolved("Library/a.jpg", root: layout.root, from: layout.base) == "a.jpg")
    // Nowhere: taken as relative to the root, for the library to say it has no such asset.
    #expect(try resolved("Album/none.jpg", root: layout.root, from: "/") == "Album/none.jpg")
  }

  @Test func aPathAsTheListingEscapesItFindsANameThatIsNotUTF8() throws {
    let layout = try Layout()
    let name: [UInt8] = [0x66, 0xFF, 0x25, 0x2E, 0x6A, 0x70, 0x67]  // f, 0xFF, %, .jpg
    let file = Array(layout.root.utf8) + [UInt8(ascii: "/")] + name
    let descriptor = open(file.map { CChar(bitPattern: $0) } + [0], O_CREAT | O_WRONLY, 0o644)
    try #require(descriptor >= 0)
    close(descriptor)
    let listed = LibraryPath(bytes: name).escaped
    #expect(listed == "f%FF%25.jpg")
    let found = try AssetLocation.relativePath(
      of: Array(listed.utf8), root: Array(layout.root.utf8), workingDirectory: Array("/".utf8))
    #expect(found.bytes == name)
  }

  @Test func absolutePathsAndLinkedFoldersAreComparedByTheirRealFolders() throws {
    let layout = try Layout()
    #expect(try resolved(layout.root + "/Album/b.jpg", root: layout.root) == "Album/b.jpg")
    #expect(
      try resolved(layout.root + "/Album/b.jpg", root: layout.base + "/LinkToLibrary")
        == "Album/b.jpg")
    #expect(try resolved(layout.base + "/LinkToLibrary/a.jpg", root: layout.root) == "a.jpg")
    // The name itself is not resolved: a link is looked up as the link (which the library
    // does not list), not as its target.
    #expect(try resolved(layout.root + "/link.jpg", root: layout.root) == "link.jpg")
  }

  @Test func pathsOutsideTheRootAndTheRootItselfAreRefused() throws {
    let layout = try Layout()
    let outsideCases: [(String, String?)] = [
      (layout.base + "/outside.jpg", nil), ("../outside.jpg", nil), ("outside.jpg", layout.base),
      (layout.root, nil), (layout.root + "/", nil), (layout.root + "/.", nil), ("/", nil),
      ("..", layout.root), (layout.base + "/missing/a.jpg", nil),
    ]
    for (path, directory) in outsideCases {
      #expect(
        throws: AssetLocation.Failure.outsideLibrary(path: path, root: layout.root), "\(path)"
      ) {
        _ = try resolved(path, root: layout.root, from: directory ?? "/")
      }
    }
  }

  @Test func aRootThatCannotBeResolvedLeavesTheErrorToTheLibrary() throws {
    #expect(try resolved("a/b.jpg", root: "/no/such/library") == "a/b.jpg")
    #expect(throws: AssetLocation.Failure.self) {
      _ = try resolved("../b.jpg", root: "/no/such/library")
    }
  }

  @Test func theURLOfAPathIsTheURLTheLibraryListsForIt() async throws {
    let library = AssetsLibrary(root: DemoCommand.bundledLibrary)
    let contents = try await library.enumerate()
    #expect(contents.assets.count == 15)
    for asset in contents.assets {
      #expect(AssetLocation.url(of: asset.path) == asset.url, "\(asset.path)")
    }
  }
}
