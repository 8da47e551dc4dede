import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Every call that reads files uses the index ``LibraryOptions/index`` names: the path
/// lookup, the batched stream and the group list give what they give without it, store
/// what they read, and on the second call read nothing.
@Suite struct IndexEveryCallTests {
  /// What one call returned, and what it did with files and the index.
  struct Observed<Value> {
    var value: Value
    var tally: IndexObserver.Tally
  }

  /// Runs `call` with an observer and returns its result with the observer's tally.
  private func observe<Value>(_ call: () async throws -> Value) async throws -> Observed<Value> {
    let observer = IndexObserver()
    let value = try await IndexObserver.$current.withValue(observer) { try await call() }
    return Observed(value: value, tally: observer.tally)
  }

  private func library(_ root: URL, index: URL?) -> AssetsLibrary {
    AssetsLibrary(root: root, options: LibraryOptions(index: index.map { .file($0) } ?? .none))
  }

  /// The assets as sorted-key JSON, so that equal means byte-identical output.
  private func json(_ assets: [Asset]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(assets)
  }

  private func streamed(_ library: AssetsLibrary) async throws -> [Asset] {
    var assets: [Asset] = []
    for try await asset in library.assets(filter: .all, batchSize: 3) { assets.append(asset) }
    return assets
  }

  /// How many rows the index at `url` holds.
  private func rows(in url: URL) throws -> Int {
    var count = 0
    var connection = try SQLiteConnection(path: url.path, busyTimeoutMilliseconds: 1000)
    try connection.query("SELECT path FROM files") { _ in count += 1 }
    return count
  }

  @Test(arguments: IndexTests.fixtureLibraries)
  func theBatchedStreamUsesTheIndexAndDeliversWhatItDeliversWithoutIt(root: URL) async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let plain = try await observe { try await streamed(library(root, index: nil)) }
    let first = try await observe { try await streamed(library(root, index: index)) }
    let second = try await observe { try await streamed(library(root, index: index)) }
    let listed = try await library(root, index: nil).enumerate()
    #expect(plain.value.count > 10)
    #expect(try json(plain.value) == json(listed.assets))
    #expect(try json(first.value) == json(plain.value))
    #expect(try json(second.value) == json(plain.value))
    #expect(plain.tally.jobs > 10 && plain.tally.taken == 0)
    #expect(first.tally.jobs == plain.tally.jobs && first.tally.taken == 0)
    #expect(second.tally.jobs == plain.tally.jobs)
    #expect(second.tally.read == 0)
    #expect(first.tally.warnings.isEmpty && second.tally.warnings.isEmpty)
    // The stream stored every file it read, so a listing now reads none.
    let after = try await library(root, index: index).enumerate()
    #expect(after.statistics.filesRead == 0)
    #expect(after.statistics.filesFromIndex == listed.statistics.filesRead)
  }

  @Test(arguments: IndexTests.fixtureLibraries)
  func thePathLookupUsesTheIndexAndFindsWhatItFindsWithoutIt(root: URL) async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let listed = try await library(root, index: nil).enumerate()
    let paths = listed.assets.flatMap { $0.resources.map(\.path) }
    #expect(paths.count > 10)
    for path in paths {
      let plain = try await observe { try await library(root, index: nil).asset(at: path) }
      let first = try await observe { try await library(root, index: index).asset(at: path) }
      let second = try await observe { try await library(root, index: index).asset(at: path) }
      let found = try #require(plain.value, "\(path)")
      #expect(try json([found]) == json([try #require(first.value)]), "\(path)")
      #expect(try json([found]) == json([try #require(second.value)]), "\(path)")
      #expect(plain.tally.jobs > 0 && plain.tally.taken == 0, "\(path)")
      #expect(second.tally.jobs == plain.tally.jobs, "\(path)")
      #expect(second.tally.read == 0, "\(path)")
      #expect(second.tally.warnings.isEmpty, "\(path)")
    }
  }

  @Test func aPathLookupKeepsTheRowsOfEveryOtherFile() async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let first = try await library(Sample.library, index: index).enumerate()
    let stored = try rows(in: index)
    #expect(stored == first.statistics.filesRead)
    let found = try await library(Sample.library, index: index).asset(
      at: LibraryPath(Sample.liveMovie))
    #expect(found?.type == .livePhoto)
    #expect(try rows(in: index) == stored)
    let again = try await library(Sample.library, index: index).enumerate()
    #expect(again.statistics.filesRead == 0)
    #expect(again.statistics.filesFromIndex == first.statistics.filesRead)
  }

  @Test(arguments: IndexTests.fixtureLibraries)
  func theGroupListTakesItsLivePhotoCandidatesFromTheIndex(root: URL) async throws {
    let folder = try TemporaryFolder()
    let index = folder.root.appendingPathComponent("index.sqlite")
    let types: AssetGroup.Types = [.savedPhotos, .album, .library]
    let plain = try await observe { try await library(root, index: nil).groups(types: types) }
    let first = try await observe { try await library(root, index: index).groups(types: types) }
    let second = try await observe { try await library(root, index: index).groups(types: types) }
    #expect(plain.value.count > 1)
    #expect(first.value == plain.value)
    #expect(second.value == plain.value)
    #expect(first.tally.jobs == plain.tally.jobs && first.tally.taken == 0)
    #expect(second.tally.jobs == plain.tally.jobs)
    #expect(second.tally.read == 0)
    if root == Sample.library {
      // Fixtures/Library has Live Photo candidates: the group list had to read them.
      #expect(plain.tally.jobs >= 2)
      #expect(plain.value.contains { $0.counts[.livePhoto, default: 0] > 0 })
    }
  }

  @Test func aCallWithAnUnusableIndexGivesItsWarningToTheObserverAndTheSameAnswer()
    async throws
  {
    let folder = try TemporaryFolder()
    let copy = folder.root.appendingPathComponent("Library")
    try FileManager.default.copyItem(at: Sample.library, to: copy)
    let inside = copy.appendingPathComponent("index.sqlite")
    let path = LibraryPath(Sample.liveStill)
    let plain = try await library(copy, index: nil).asset(at: path)
    let looked = try await observe { try await library(copy, index: inside).asset(at: path) }
    #expect(looked.value == plain)
    #expect(looked.tally.warnings.count == 1)
    #expect(looked.tally.warnings.first?.contains("inside the library") == true)
    #expect(!FileManager.default.fileExists(atPath: inside.path))
  }
}
