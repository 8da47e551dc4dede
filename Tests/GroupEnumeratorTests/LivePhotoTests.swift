import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct LivePhotoTests {
  func enumerate(
    _ library: TemporaryFolder, filter: AssetFilter = .all
  ) async throws -> ([Asset], ProgressLog) {
    let log = ProgressLog()
    let assets = try await AssetsLibrary(root: library.root).enumerate(filter: filter) {
      log.record($0, $1)
    }.assets
    return (assets, log)
  }

  @Test(arguments: ["IMG_5.MOV", "IMG_5_HEVC.MOV", "img_5.mov"])
  func aStillAndAMovieOfOneShotAreOneLivePhoto(movieName: String) async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.liveStill, as: "Live/IMG_5.HEIC")
    try library.add(Sample.liveMovie, as: "Live/\(movieName)")
    try library.add(Sample.photoWithGPS, as: "Live/other.jpg")
    let (assets, log) = try await enumerate(library)
    #expect(assets.map(\.type) == [.livePhoto, .photo])
    let live = try #require(assets.first)
    #expect(live.name == "IMG_5.HEIC")
    #expect(live.resources.map(\.name) == ["IMG_5.HEIC", movieName])
    #expect(live.resources.map(\.role) == [.photo, .pairedVideo])
    #expect(live.duration == 1.5)
    #expect(live.creationDate?.iso8601 == "2021-06-05T18:30:00+09:00")
    #expect(live.creationDate?.source == .exifDateTimeOriginal)
    #expect(live.problems.isEmpty)
    await log.expectWellFormed(total: 2)
  }

  /// Candidates pair by folder and base name, the base without regard to ASCII case and
  /// a movie's `_HEVC` ending: not across folders, not when a folder's name and a base
  /// name would run together (`ab/c` and `a/bc`), not without a base name.
  @Test func candidatesPairByFolderAndBaseName() {
    func file(_ name: String) -> ScannedFile {
      let isMovie = name.lowercased().hasSuffix(".mov")
      return ScannedFile(
        path: LibraryPath(name), fileSize: 10, modificationDate: Date(timeIntervalSince1970: 0),
        format: isMovie ? .quickTime : .heic, type: isMovie ? .video : .photo, problem: nil)
    }
    let files = [
      "A/IMG_1.HEIC", "A/img_1_hevc.MOV", "A/IMG_2.HEIC", "B/IMG_2.MOV", "ab/c.HEIC", "a/bc.MOV",
      "C/.HEIC", "C/.MOV", "D/x_HEVC.HEIC", "D/x.MOV", "E/IMG_3.HEIC", "E/IMG_3.MOV",
      "E/_hevc.MOV", "E/_hevc.HEIC",
    ].map(file)
    let pairs = LivePhotoPairing.candidates(in: files).map {
      [$0.still.path.escaped, $0.video.path.escaped]
    }
    #expect(
      pairs == [
        ["A/IMG_1.HEIC", "A/img_1_hevc.MOV"], ["E/IMG_3.HEIC", "E/IMG_3.MOV"],
        ["E/_hevc.HEIC", "E/_hevc.MOV"],
      ])
  }

  @Test func aHealthyStillWithoutADateIsNotPairedByNameAlone() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithoutMetadata, as: "IMG_8.JPG")
    try library.add(Sample.liveMovie, as: "IMG_8.MOV")
    let (assets, _) = try await enumerate(library)
    #expect(assets.map(\.type) == [.photo, .video])
  }

  @Test func filtersCountALivePhotoAsAPhotoNotAVideo() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.liveStill, as: "IMG_5.HEIC")
    try library.add(Sample.liveMovie, as: "IMG_5.MOV")
    try library.add(Sample.mp4, as: "clip.mp4")
    let (photos, photoLog) = try await enumerate(library, filter: .photos)
    #expect(photos.map(\.type) == [.livePhoto])
    await photoLog.expectWellFormed(total: 1)
    let (videos, videoLog) = try await enumerate(library, filter: .videos)
    #expect(videos.map(\.name) == ["clip.mp4"])
    await videoLog.expectWellFormed(total: 1)
    let groups = try await AssetsLibrary(root: library.root).groups()
    #expect(groups.first?.counts == [.livePhoto: 1, .video: 1])
  }

  @Test func capturesFarApartStayTwoAssets() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    // The still was taken in 2019 (+09:00), the movie in 2021 (+09:00).
    try library.add(Sample.photoWithGPS, as: "IMG_7.JPG")
    try library.add(Sample.movie, as: "IMG_7.MOV")
    let (assets, log) = try await enumerate(library)
    #expect(assets.map(\.type) == [.photo, .video])
    await log.expectWellFormed(total: 2)
    // The groups count what the listing lists: two assets, not one pair by name.
    let groups = try await AssetsLibrary(root: library.root).groups(types: [.savedPhotos, .library])
    #expect(groups.map(\.counts) == [[.photo: 1, .video: 1], [.photo: 1, .video: 1]])
    let contents = try await AssetsLibrary(root: library.root).enumerate()
    #expect(contents.groups.map(\.counts) == [[.photo: 1, .video: 1]])
  }

  @Test func aPairWithABrokenStillIsStillOnePairWithTheProblemReported() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.truncatedJPEG, as: "IMG_9.JPG")
    try library.add(Sample.movie, as: "IMG_9.MOV")
    let (assets, _) = try await enumerate(library)
    let live = try #require(assets.first)
    #expect(assets.count == 1)
    #expect(live.type == .livePhoto)
    #expect(!live.problems.isEmpty)
  }

  @Test func aBrokenMovieIsNamedInTheProblem() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.liveStill, as: "IMG_3.HEIC")
    let movie = try Data(contentsOf: Sample.library.appendingPathComponent(Sample.liveMovie))
    try library.write(Array(movie.prefix(40)), as: "IMG_3.MOV")
    let (assets, _) = try await enumerate(library)
    let live = try #require(assets.first)
    #expect(live.type == .livePhoto)
    #expect(live.problems.contains { $0.message.hasPrefix("IMG_3.MOV: ") })
  }

  @Test func twoStillsOfOneNameAreNotPairedWithTheMovie() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithoutMetadata, as: "IMG_4.JPG")
    try library.add(Sample.photoWithoutMetadata, as: "IMG_4.jpeg")
    try library.add(Sample.movie, as: "IMG_4.MOV")
    let (assets, _) = try await enumerate(library)
    #expect(assets.map(\.type) == [.photo, .video, .photo])
  }

  @Test func halvesInDifferentFoldersAreNotPaired() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithoutMetadata, as: "DCIM/100A/IMG_6.JPG")
    try library.add(Sample.movie, as: "DCIM/100B/IMG_6.MOV")
    let (assets, _) = try await enumerate(library)
    #expect(assets.map(\.type) == [.photo, .video])
  }

  @Test func aLocalTimeMatchesAnInstantAWholeZoneAway() throws {
    let local = try #require(
      CaptureDate(
        year: 2021, month: 6, day: 5, hour: 18, minute: 30, second: 0, zone: .unknown,
        source: .exifDateTimeOriginal))
    let utc = try #require(
      CaptureDate(
        year: 2021, month: 6, day: 5, hour: 9, minute: 30, second: 2, zone: .utc,
        source: .quickTimeMovieHeader))
    let elsewhen = try #require(
      CaptureDate(
        year: 2021, month: 6, day: 5, hour: 9, minute: 37, second: 0, zone: .utc,
        source: .quickTimeMovieHeader))
    #expect(LivePhotoPairing.areClose(local, utc))
    #expect(!LivePhotoPairing.areClose(local, elsewhen))
  }

  @Test func identifiersDecideOverDates() {
    var still = MediaMetadata()
    var video = MediaMetadata()
    still.contentIdentifier = "A"
    video.contentIdentifier = "B"
    #expect(!LivePhotoPairing.confirms(still: still, video: video))
    video.contentIdentifier = "A"
    still.dateTimeOriginal = CaptureDate(
      year: 2019, month: 1, day: 1, hour: 0, minute: 0, second: 0, zone: .unknown,
      source: .exifDateTimeOriginal)
    video.quickTimeCreationDate = CaptureDate(
      year: 2021, month: 1, day: 1, hour: 0, minute: 0, second: 0, zone: .offset(seconds: 0),
      source: .quickTimeCreationDate)
    #expect(LivePhotoPairing.confirms(still: still, video: video))
  }
}
