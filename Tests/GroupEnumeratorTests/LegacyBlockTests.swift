import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// What an `enumerateGroups` run called, recorded on the main actor.
@MainActor final class GroupWalk {
  var groups: [LegacyAssetsGroup] = []
  var closingCalls = 0
  var failures: [LibraryError] = []
  var callsAfterClosing = 0
}

@Suite @MainActor struct LegacyBlockTests {
  /// Camera Roll (photo + video), `Album` (3 photos + 1 video), `Other` (1 photo).
  func library() throws -> TemporaryFolder {
    let library = try TemporaryFolder()
    try library.add(Sample.photoWithGPS, as: "IMG_1.jpg")
    try library.add(Sample.movie, as: "IMG_2.MOV")
    try library.add(Sample.photoWithGPS, as: "Album/a.jpg")
    try library.add(Sample.photoWithoutMetadata, as: "Album/b.jpg")
    try library.add(Sample.mp4, as: "Album/c.mp4")
    try library.add(Sample.photoWithoutMetadata, as: "Album/d.jpg")
    try library.add(Sample.photoWithGPS, as: "Other/x.jpg")
    return library
  }

  func walk(
    _ root: URL, types: AssetGroup.Types = .all, stopAfter: Int? = nil
  ) async -> GroupWalk {
    let walk = GroupWalk()
    await AssetsLibrary(root: root).enumerateGroups(
      types: types,
      using: { group, stop in
        if walk.closingCalls > 0 { walk.callsAfterClosing += 1 }
        guard let group else {
          walk.closingCalls += 1
          return
        }
        walk.groups.append(group)
        if let stopAfter, walk.groups.count == stopAfter { stop = true }
      },
      failure: { walk.failures.append($0) }
    ).wait()
    return walk
  }

  /// Every (asset name or nil, index) an asset enumeration produced.
  func visits(
    _ group: LegacyAssetsGroup, options: EnumerationOptions = [], indexes: IndexSet? = nil,
    stopAt: Int? = nil
  ) -> [(String?, Int)] {
    var seen: [(String?, Int)] = []
    let block: (Asset?, Int, inout Bool) -> Void = { asset, index, stop in
      seen.append((asset?.name, index))
      if let stopAt, seen.count == stopAt { stop = true }
    }
    if let indexes {
      group.enumerateAssets(at: indexes, options: options, using: block)
    } else {
      group.enumerateAssets(options: options, using: block)
    }
    return seen
  }

  @Test func groupsComeInOrderThenOneClosingNil() async throws {
    let library = try library()
    defer { library.remove() }
    let walk = await walk(library.root)
    #expect(walk.groups.map(\.name) == ["Camera Roll", "Album", "Other"])
    #expect(walk.groups.map(\.type) == [.savedPhotos, .album, .album])
    #expect(walk.closingCalls == 1)
    #expect(walk.callsAfterClosing == 0)
    #expect(walk.failures.isEmpty)
  }

  @Test(arguments: 1...3) func stopAtEveryGroupStillEndsWithTheClosingNil(position: Int)
    async throws
  {
    let library = try library()
    defer { library.remove() }
    let walk = await walk(library.root, stopAfter: position)
    #expect(walk.groups.count == position)
    #expect(walk.closingCalls == 1)
  }

  @Test func allPhotosGroupHoldsEveryAsset() async throws {
    let library = try library()
    defer { library.remove() }
    let walk = await walk(library.root, types: .library)
    let all = try #require(walk.groups.first)
    #expect(walk.groups.count == 1)
    #expect(all.type == .library)
    #expect(all.numberOfAssets == 7)
  }

  @Test func filtersChangeCountsAndEnumerations() async throws {
    let library = try library()
    defer { library.remove() }
    let album = try #require(await walk(library.root).groups.dropFirst().first)
    #expect(album.numberOfAssets == 4)
    album.setAssetsFilter(.allPhotos)
    #expect(album.numberOfAssets == 3)
    #expect(visits(album).map(\.0) == ["a.jpg", "b.jpg", "d.jpg", nil])
    album.setAssetsFilter(.allVideos)
    #expect(album.numberOfAssets == 1)
    #expect(album.posterAsset?.name == "c.mp4")
    album.setAssetsFilter(.allAssets)
    #expect(album.numberOfAssets == 4)
  }

  @Test func assetEnumerationEndsWithNilAndNSNotFound() async throws {
    let library = try library()
    defer { library.remove() }
    let album = try #require(await walk(library.root).groups.dropFirst().first)
    let seen = visits(album)
    #expect(seen.map(\.0) == ["a.jpg", "b.jpg", "c.mp4", "d.jpg", nil])
    #expect(seen.map(\.1) == [0, 1, 2, 3, NSNotFound])
  }

  @Test(arguments: 1...4) func stopAtEveryAssetStillEndsWithTheClosingCall(position: Int)
    async throws
  {
    let library = try library()
    defer { library.remove() }
    let album = try #require(await walk(library.root).groups.dropFirst().first)
    let seen = visits(album, stopAt: position)
    #expect(seen.count == position + 1)
    #expect(seen.last?.0 == nil)
    #expect(seen.last?.1 == NSNotFound)
    #expect(seen.dropLast().map(\.1) == Array(0..<position))
  }

  @Test func reverseGoesLastFirst() async throws {
    let library = try library()
    defer { library.remove() }
    let album = try #require(await walk(library.root).groups.dropFirst().first)
    let seen = visits(album, options: .reverse)
    #expect(seen.map(\.0) == ["d.jpg", "c.mp4", "b.jpg", "a.jpg", nil])
    #expect(seen.map(\.1) == [3, 2, 1, 0, NSNotFound])
  }

  @Test func indexSetEnumerationVisitsOnlyThoseIndexes() async throws {
    let library = try library()
    defer { library.remove() }
    let album = try #require(await walk(library.root).groups.dropFirst().first)
    let indexes = IndexSet([0, 2, 9])
    #expect(visits(album, indexes: indexes).map(\.1) == [0, 2, NSNotFound])
    #expect(visits(album, options: .reverse, indexes: indexes).map(\.1) == [2, 0, NSNotFound])
  }

  @Test func aMissingLibraryCallsFailureOnceAndNoBlock() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let missing = library.root.appendingPathComponent("missing")
    let walk = await walk(missing)
    #expect(walk.failures == [.rootNotFound(path: missing.path)])
    #expect(walk.groups.isEmpty)
    #expect(walk.closingCalls == 0)
    let error = try #require(walk.failures.first)
    #expect((error as NSError).domain == "ALAssetsLibraryErrorDomain")
    #expect((error as NSError).code == -3310)
    #expect(LibraryError.permissionDenied(path: "/x").errorCode == -3311)
  }

  @Test func groupAndAssetURLsResolveAndUnknownOnesGiveNil() async throws {
    let library = try library()
    defer { library.remove() }
    let engine = AssetsLibrary(root: library.root)
    for group in try await engine.groups(types: [.savedPhotos, .album, .library]) {
      #expect(try await engine.group(for: group.url) == group)
    }
    let unknownGroup = try #require(
      URL(string: "assets-library://group/?id=00000000-0000-8000-8000-000000000000"))
    #expect(try await engine.group(for: unknownGroup) == nil)
    let notAGroup = try #require(URL(string: "https://example.com/?id=1"))
    #expect(try await engine.group(for: notAGroup) == nil)
    #expect(try await engine.asset(for: notAGroup) == nil)
  }

  @Test func urlsAreStableAcrossRunsAndAcrossARenameOfAnotherFile() async throws {
    let library = try library()
    defer { library.remove() }
    let engine = AssetsLibrary(root: library.root)
    let before = try await engine.enumerate().assets
    let again = try await engine.enumerate().assets
    #expect(before.map(\.url) == again.map(\.url))
    try FileManager.default.moveItem(
      at: library.root.appendingPathComponent("Album/b.jpg"),
      to: library.root.appendingPathComponent("Album/renamed.jpg"))
    let after = try await engine.enumerate().assets
    let untouched = before.filter { $0.name != "b.jpg" }
    for asset in untouched {
      #expect(after.first { $0.path == asset.path }?.url == asset.url)
    }
    let groupsBefore = before.map(\.groupPath)
    #expect(Set(after.map(\.groupPath)) == Set(groupsBefore))
  }

  @Test func thumbnailsAreTheEmbeddedBytesOrSayThereIsNone() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add("Trips/Kyoto 2019/trip-02.jpg", as: "with.jpg")
    try library.add(Sample.photoWithoutMetadata, as: "without.jpg")
    let engine = AssetsLibrary(root: library.root)
    let assets = try await engine.enumerate().assets
    let with = try #require(assets.first { $0.name == "with.jpg" })
    #expect(with.metadata.hasThumbnail)
    let thumbnail = try await engine.thumbnail(for: with)
    #expect(thumbnail.data.count == 325)
    #expect(thumbnail.pixelWidth == 32)
    #expect(thumbnail.pixelHeight == 24)
    let without = try #require(assets.first { $0.name == "without.jpg" })
    await #expect(throws: ThumbnailError.noEmbeddedThumbnail(name: "without.jpg")) {
      try await engine.thumbnail(for: without)
    }
  }
}
