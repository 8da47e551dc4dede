import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

/// Records what an enumeration reported, on the main actor.
@MainActor final class ProgressLog {
  var calls: [(current: Int, total: Int)] = []

  func record(_ current: Int, _ total: Int) {
    MainActor.assertIsolated()
    calls.append((current, total))
  }

  /// Checks the progress contract: one total throughout, `current` strictly growing, ending at
  /// `(total, total)`.
  func expectWellFormed(total: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!calls.isEmpty, sourceLocation: sourceLocation)
    #expect(calls.allSatisfy { $0.total == total }, sourceLocation: sourceLocation)
    let currents = calls.map(\.current)
    #expect(
      zip(currents, currents.dropFirst()).allSatisfy { $0 < $1 }, sourceLocation: sourceLocation)
    #expect(calls.last?.current == total, sourceLocation: sourceLocation)
  }
}

@Suite struct EngineTests {
  /// A library of three groups: Camera Roll (2), `B album` (1), `a album/inner` (2).
  func threeGroupLibrary() throws -> TemporaryFolder {
    let library = try TemporaryFolder()
    try library.add(Sample.photoWithGPS, as: "root1.jpg")
    try library.add(Sample.movie, as: "DCIM/100TEST/clip.MOV")
    try library.add(Sample.photoWithoutMetadata, as: "B album/photo.jpg")
    try library.add(Sample.photoWithGPS, as: "a album/inner/z.jpg")
    try library.add(Sample.truncatedJPEG, as: "a album/inner/a.jpg")
    return library
  }

  @Test func groupsComeCameraRollFirstThenAlbumsByPath() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let groups = try await AssetsLibrary(root: library.root).groups()
    #expect(groups.map(\.kind) == [.savedPhotos, .album, .album])
    #expect(groups.map(\.name) == ["Camera Roll", "B album", "a album/inner"])
    #expect(groups.map(\.count) == [2, 1, 2])
  }

  @Test func allPhotosGroupIsListedOnlyWhenAskedFor() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let engine = AssetsLibrary(root: library.root)
    let groups = try await engine.groups(types: [.library])
    #expect(groups.map(\.kind) == [.library])
    #expect(groups.first?.count == 5)
    let all = try await engine.assets(in: try #require(groups.first))
    #expect(all.count == 5)
  }

  @Test func progressTotalCountsEveryGroupAndEndsAtTotal() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let log = ProgressLog()
    let contents = try await AssetsLibrary(root: library.root).enumerate { current, total in
      log.record(current, total)
    }
    #expect(contents.assets.count == 5)
    await log.expectWellFormed(total: 5)
  }

  @Test func statisticsCountTheFilesReadAndTheHopsToTheMainActor() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let log = ProgressLog()
    let contents = try await AssetsLibrary(root: library.root).enumerate { current, total in
      log.record(current, total)
    }
    let statistics = contents.statistics
    #expect(statistics.filesRead == 5)
    // Every progress call is a hop; so are the reporter's creation and any delivery that
    // found nothing new to report.
    #expect(statistics.mainActorHops >= (await log.calls.count) + 1)
    #expect(statistics.walk > .zero && statistics.metadata > .zero)
    #expect(statistics.delivery >= .zero)
    let videos = try await AssetsLibrary(root: library.root).enumerate(filter: .videos)
    #expect(videos.statistics.filesRead == 1)
  }

  @Test func aFileListedWithoutStatusGetsTheSizeAndTimeOfItsOpenDescriptor() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "a.jpg")
    let path = library.root.appendingPathComponent("a.jpg").path
    var times = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0),
      timespec(tv_sec: 1_234_567_890, tv_nsec: 500_000_000),
    ]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let asset = try #require(try await AssetsLibrary(root: library.root).enumerate().assets.first)
    #expect(asset.fileSize == Int64(size))
    #expect(asset.fileModificationDate == Date(timeIntervalSince1970: 1_234_567_890.5))
  }

  @Test func filterCountsOnlyMatchingAssets() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let log = ProgressLog()
    let contents = try await AssetsLibrary(root: library.root).enumerate(filter: .videos) {
      current, total in log.record(current, total)
    }
    #expect(contents.assets.map(\.path.escaped) == ["DCIM/100TEST/clip.MOV"])
    #expect(contents.assets.first?.type == .video)
    await log.expectWellFormed(total: 1)
  }

  /// The walk only stats files with media extensions, so `total` is counted by name; the
  /// reader then sniffs the content, which picks the reader (a movie never reaches
  /// gexiv2), and the mismatch is reported.
  @Test func aMovieNamedLikeAPhotoIsCountedByNameAndReadAsAMovie() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.movie, as: "movie.jpg")
    try library.add(Sample.photoWithGPS, as: "photo.mov")
    try library.add(Sample.photoWithGPS, as: "real.jpg")
    let log = ProgressLog()
    let photos = try await AssetsLibrary(root: library.root).enumerate(filter: .photos) {
      current, total in log.record(current, total)
    }
    await log.expectWellFormed(total: 2)
    #expect(photos.assets.map(\.path.escaped) == ["movie.jpg", "real.jpg"])
    let movie = try #require(photos.assets.first)
    #expect(movie.type == .photo)
    #expect(movie.resources.map(\.format) == [.quickTime])
    #expect(movie.duration != nil)
    #expect(movie.problems.map(\.code) == [.misnamed])
    let videos = try await AssetsLibrary(root: library.root).enumerate(filter: .videos)
    #expect(videos.assets.map(\.path.escaped) == ["photo.mov"])
    #expect(videos.assets.first?.resources.map(\.format) == [.jpeg])
    #expect(videos.assets.first?.location != nil)
    #expect(videos.assets.first?.problems.map(\.code) == [.misnamed])
    #expect(photos.assets.last?.problems == [])
  }

  @Test(arguments: [1, 2, 7])
  func resultOrderIsGroupOrderThenNameWhateverTheConcurrency(width: Int) async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    for index in 0..<20 {
      try library.add(
        Sample.photoWithoutMetadata, as: "B album/n\(String(format: "%02d", 19 - index)).jpg")
    }
    let engine = AssetsLibrary(
      root: library.root, options: LibraryOptions(maximumConcurrency: width))
    let paths = try await engine.enumerate().assets.map(\.path.escaped)
    let expected =
      ["DCIM/100TEST/clip.MOV", "root1.jpg", "B album/n00.jpg"]
      + (1..<20).map { "B album/n\(String(format: "%02d", $0)).jpg" }
      + ["B album/photo.jpg", "a album/inner/a.jpg", "a album/inner/z.jpg"]
    #expect(paths == expected)
  }

  @Test func aBrokenFileIsAnAssetWithAProblemNotAFailure() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let assets = try await AssetsLibrary(root: library.root).enumerate().assets
    let broken = try #require(assets.first { $0.path.escaped == "a album/inner/a.jpg" })
    #expect(!broken.problems.isEmpty)
    #expect(broken.type == .photo)
  }

  @Test func assetURLsResolveToTheSameAsset() async throws {
    let library = try threeGroupLibrary()
    defer { library.remove() }
    let engine = AssetsLibrary(root: library.root)
    let assets = try await engine.enumerate().assets
    for asset in assets {
      let found = try await engine.asset(for: asset.url)
      #expect(found == asset)
    }
    let unknown = try #require(
      URL(
        string: "assets-library://asset/asset.JPG?id=00000000-0000-8000-8000-000000000000&ext=JPG"))
    #expect(try await engine.asset(for: unknown) == nil)
  }

  @Test func missingRootThrowsRootNotFound() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    let missing = library.root.appendingPathComponent("never-created")
    await #expect(throws: LibraryError.rootNotFound(path: missing.path)) {
      try await AssetsLibrary(root: missing).enumerate()
    }
  }

  @Test func rootThatIsAFileThrowsRootNotADirectory() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithGPS, as: "file.jpg")
    let file = library.root.appendingPathComponent("file.jpg")
    await #expect(throws: LibraryError.rootNotADirectory(path: file.path)) {
      try await AssetsLibrary(root: file).enumerate()
    }
  }

  @Test func cancellationEndsWithCancelled() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    for index in 0..<400 {
      try library.add(Sample.photoWithGPS, as: "many/\(index).jpg")
    }
    let engine = AssetsLibrary(root: library.root, options: LibraryOptions(maximumConcurrency: 1))
    let task = Task { try await engine.enumerate() }
    task.cancel()
    await #expect(throws: LibraryError.cancelled) { try await task.value }
  }
}
