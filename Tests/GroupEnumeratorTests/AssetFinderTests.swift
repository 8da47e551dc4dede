import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// `AssetFinder`: many lookups against one walk give what `asset(at:)` gives, and a file
/// the kept walk has not seen is still found.
struct AssetFinderTests {
  @Test func everyFileOfTheSampleLibraryIsFoundAsAssetAtFindsIt() async throws {
    let library = AssetsLibrary(root: Sample.library)
    let finder = AssetFinder(library: library)
    let listed = try await library.enumerate()
    let paths = listed.assets.flatMap { $0.resources.map(\.path) }
    #expect(paths.count > 10)
    for path in paths {
      let found = try await finder.asset(at: path)
      let looked = try await library.asset(at: path)
      #expect(found != nil && found == looked, "\(path)")
    }
    #expect(try await finder.asset(at: LibraryPath("no/such/file.jpg")) == nil)
  }

  @Test func aFileAddedAfterTheWalkIsFoundAndOneRemovedIsNot() async throws {
    let folder = try TemporaryFolder()
    let copy = folder.root.appendingPathComponent("Library")
    try FileManager.default.copyItem(at: Sample.library, to: copy)
    let library = AssetsLibrary(root: copy)
    let finder = AssetFinder(library: library)
    let listed = try await library.enumerate()
    let first = try #require(listed.assets.first { $0.type == .photo })
    #expect(try await finder.asset(at: first.path) == first)
    // After the walk is kept: a new photo, and the first one gone.
    let added = copy.appendingPathComponent("added.jpg")
    try FileManager.default.copyItem(
      at: copy.appendingPathComponent(String(decoding: first.path.bytes, as: UTF8.self)), to: added)
    try FileManager.default.removeItem(
      at: copy.appendingPathComponent(String(decoding: first.path.bytes, as: UTF8.self)))
    let found = try await finder.asset(at: LibraryPath("added.jpg"))
    #expect(found?.path == LibraryPath("added.jpg"))
    #expect(try await finder.asset(at: first.path) == nil)
  }
}
