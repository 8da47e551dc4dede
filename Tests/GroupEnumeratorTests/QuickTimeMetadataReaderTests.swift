import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct QuickTimeMetadataReaderTests {
  typealias B = BoxBuilder

  /// 2026-09-21, a fixed "now" for plausibility checks.
  static let now = Date(timeIntervalSince1970: 1_790_000_000)

  static let appleItems = [
    ("com.apple.quicktime.location.ISO6709", "+35.0116+135.7681+050.000/"),
    ("com.apple.quicktime.make", "Apple"),
    ("com.apple.quicktime.creationdate", "2021-06-01T19:00:00+0900"),
    ("com.apple.quicktime.content.identifier", "9B539AB8-A668-4FA6-9207-EB653A5E7E3C"),
  ]

  func read(_ bytes: [UInt8]) -> MediaMetadata {
    QuickTimeMetadataReader.read(from: ArrayByteSource(bytes), now: Self.now)
  }

  func movie(_ children: [[UInt8]], before: [UInt8] = B.ftyp()) -> [UInt8] {
    before + B.box("moov", children: children)
  }

  @Test func readsEveryFieldOfAnAppleMovie() throws {
    let metadata = read(
      movie([
        B.mvhd(creation: B.june2021, timescale: 600, duration: 1500),
        B.trak(handler: "soun", width: 0, height: 0),
        B.trak(handler: "vide", width: 1920, height: 1080, matrix: B.quarterTurnMatrix),
        B.appleMeta(Self.appleItems),
      ]))
    #expect(metadata.problems == [])
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-06-01T10:00:00Z")
    #expect(metadata.movieHeaderCreationDate?.source == .quickTimeMovieHeader)
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2021-06-01T19:00:00+09:00")
    #expect(metadata.quickTimeCreationDate?.source == .quickTimeCreationDate)
    #expect(metadata.duration == 2.5)
    #expect(metadata.pixelWidth == 1920 && metadata.pixelHeight == 1080)
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 1080 && metadata.displayedHeight == 1920)
    #expect(metadata.location == Location(latitude: 35.0116, longitude: 135.7681, altitude: 50))
    #expect(metadata.contentIdentifier == "9B539AB8-A668-4FA6-9207-EB653A5E7E3C")
  }

  @Test func readsAnISOStyleMetaFullBoxInsideUserData() throws {
    let metadata = read(
      movie([
        B.mvhd(creation: B.june2021),
        B.box("udta", B.appleMeta(Self.appleItems, isoStyle: true)),
      ]))
    #expect(metadata.problems == [])
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2021-06-01T19:00:00+09:00")
    #expect(metadata.contentIdentifier != nil)
  }

  @Test func userDataLocationIsTheFallback() {
    let only = read(
      movie([B.mvhd(creation: 0), B.box("udta", B.userDataLocation("+40.7128-074.0060/"))]))
    #expect(only.location == Location(latitude: 40.7128, longitude: -74.006))
    let both = read(
      movie([
        B.mvhd(creation: 0), B.box("udta", B.userDataLocation("+40.7128-074.0060/")),
        B.appleMeta(Self.appleItems),
      ]))
    #expect(both.location?.latitude == 35.0116)
  }

  @Test func malformedItemValuesAreReportedAndIgnored() {
    let metadata = read(
      movie([
        B.mvhd(creation: 0),
        B.appleMeta([
          ("com.apple.quicktime.creationdate", "2021-06-01 19:00"),
          ("com.apple.quicktime.location.ISO6709", "35.0, 135.0"),
          ("com.apple.quicktime.content.identifier", " "),
        ]),
        B.box("udta", B.userDataLocation("north")),
      ]))
    #expect(metadata.quickTimeCreationDate == nil)
    #expect(metadata.location == nil)
    #expect(metadata.contentIdentifier == nil)
    #expect(
      metadata.problems.map(\.code) == [.invalidValue, .invalidValue, .invalidValue, .invalidValue])
  }

  @Test func aNonTextValueIsReported() {
    let meta = B.box(
      "meta",
      B.hdlr("mdta") + B.keys(["com.apple.quicktime.creationdate"])
        + B.box("ilst", B.item(1, type: 23, [0, 0, 0, 0])))
    let metadata = read(movie([B.mvhd(creation: 0), meta]))
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }

  @Test func itemsWithUnknownIndexesAreSkipped() {
    let meta = B.box(
      "meta",
      B.hdlr("mdta") + B.keys(["com.apple.quicktime.content.identifier"])
        + B.box(
          "ilst",
          B.item(0, Array("zero".utf8)) + B.item(7, Array("seven".utf8))
            + B.item(1, Array("ID".utf8))))
    let metadata = read(movie([B.mvhd(creation: 0), meta]))
    #expect(metadata.contentIdentifier == "ID")
    #expect(metadata.problems == [])
  }

  @Test func metadataWithAnotherHandlerIsIgnored() {
    let meta = B.fullBox(
      "meta", version: 0,
      B.hdlr("mdir") + B.keys(["com.apple.quicktime.content.identifier"])
        + B.box("ilst", B.item(1, Array("ID".utf8))))
    let metadata = read(movie([B.mvhd(creation: 0), B.box("udta", meta)]))
    #expect(metadata.contentIdentifier == nil)
  }

  // MARK: mvhd dates and durations (B7–B9)

  @Test(arguments: [UInt64(0)])
  func anUnsetCreationTimeIsAbsentWithoutAProblem(creation: UInt64) {
    let metadata = read(movie([B.mvhd(creation: creation)]))
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(metadata.problems == [])
  }

  @Test(arguments: [
    UInt64.max, UInt64(Int64.max), 1, 2_082_844_799,
    UInt64(2_082_844_800 + 1_790_000_000 + 367 * 86_400),
  ])
  func anImplausibleCreationTimeIsReported(creation: UInt64) {
    let metadata = read(movie([B.mvhd(version: 1, creation: creation)]))
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }

  @Test func creationTimesFrom1970ToAYearAheadAreKept() {
    let epoch = read(movie([B.mvhd(creation: 2_082_844_800)]))
    #expect(epoch.movieHeaderCreationDate?.iso8601 == "1970-01-01T00:00:00Z")
    let soon = read(
      movie([B.mvhd(version: 1, creation: 2_082_844_800 + 1_790_000_000 + 300 * 86_400)]))
    #expect(soon.movieHeaderCreationDate != nil)
  }

  @Test func aZeroTimescaleGivesNoDurationAndAProblem() {
    let metadata = read(movie([B.mvhd(creation: 0, timescale: 0, duration: 1000)]))
    #expect(metadata.duration == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }

  @Test(arguments: [(UInt8(0), UInt64(0xFFFF_FFFF)), (1, .max), (0, 0)])
  func unknownDurationsAreAbsent(version: UInt8, duration: UInt64) {
    let metadata = read(movie([B.mvhd(version: version, creation: 0, duration: duration)]))
    #expect(metadata.duration == nil)
    #expect(metadata.problems == [])
  }

  @Test func aVersionTwoMovieHeaderIsReported() {
    var header = B.mvhd(version: 1, creation: B.june2021)
    header[8] = 2
    let metadata = read(movie([header]))
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(
      metadata.problems.map(\.message) == [
        "Box 'mvhd' at offset 28 has version 2, which is not 0 or 1."
      ])
  }

  // MARK: file structure (B10)

  @Test func noMovieBoxIsReported() {
    let metadata = read(B.ftyp() + B.box("mdat", [1, 2, 3]))
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(
      metadata
        == {
          var m = MediaMetadata(); m.problems = metadata.problems; return m
        }())
  }

  @Test func aMovieAfterMediaDataAndWithoutFileTypeIsRead() {
    let metadata = read(
      movie(
        [B.mvhd(creation: B.june2021)], before: B.box("mdat", [UInt8](repeating: 0xAB, count: 1000))
      ))
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-06-01T10:00:00Z")
    #expect(metadata.problems == [])
  }

  @Test func aMovieWithoutHeaderIsReported() {
    let metadata = read(movie([B.trak(handler: "vide", width: 4, height: 3)]))
    #expect(metadata.pixelWidth == 4)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  @Test func anUnreadableFileReportsTheReadError() {
    let metadata = QuickTimeMetadataReader.read(from: FailingSource(count: 4096))
    #expect(metadata.problems.first?.code == .unreadable)
  }

  // MARK: real files

  @Test func readsTheTinyMOV() throws {
    let metadata = read(try TestMovies.bytes("tiny.mov"))
    #expect(metadata.problems == [])
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2022-03-04T05:06:07Z")
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2022-03-04T00:06:07-05:00")
    #expect(metadata.duration.map { abs($0 - 0.2) < 0.001 } == true)
    #expect(metadata.pixelWidth == 16 && metadata.pixelHeight == 16 && metadata.orientation == 1)
    #expect(metadata.location == Location(latitude: -33.8568, longitude: 151.2153, altitude: 4.5))
    #expect(metadata.contentIdentifier == "5C2E8A4D-1B7F-4E0A-9C3D-2F6B8E1A7D40")
  }

  @Test func readsTheTinyRotatedMP4() throws {
    let metadata = read(try TestMovies.bytes("tiny.mp4"))
    #expect(metadata.problems == [])
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2023-01-02T03:04:05Z")
    #expect(metadata.quickTimeCreationDate == nil)
    #expect(metadata.pixelWidth == 32 && metadata.pixelHeight == 16 && metadata.orientation == 6)
    #expect(metadata.displayedWidth == 16 && metadata.displayedHeight == 32)
    #expect(metadata.location == Location(latitude: 40.7128, longitude: -74.006, altitude: 10))
  }

  /// A Pixel writes whole degrees without zero padding (`-2.8919`, not `-002.8919`).
  @Test func readsAPixelStyleUnpaddedLocation() throws {
    let metadata = read(try TestMovies.bytes("pixel-location.mp4"))
    #expect(metadata.problems == [])
    #expect(metadata.location == Location(latitude: 47.5383, longitude: -2.8919, altitude: 0))
  }

  /// Apple's ISO6709 key as some writers leave it: no closing `/`.
  @Test func readsAnISO6709KeyWithoutItsSlash() throws {
    let metadata = read(try TestMovies.bytes("apple-location-no-slash.mp4"))
    #expect(metadata.problems == [])
    #expect(metadata.location == Location(latitude: 29.758938, longitude: -95.3677))
  }

  @Test func readsTheSampleLibraryMOV() throws {
    let metadata = read(try TestMovies.fixture("DCIM/100APPLE/IMG_0102.MOV"))
    #expect(metadata.problems == [])
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2021-06-01T19:00:00+09:00")
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-06-01T10:00:00Z")
    #expect(metadata.location == Location(latitude: 35.0116, longitude: 135.7681, altitude: 50))
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
    #expect(metadata.duration == 1)
  }

  @Test func readsTheSampleLibraryMP4() throws {
    let metadata = read(try TestMovies.fixture("Videos/clip.mp4"))
    #expect(metadata.problems == [])
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-07-04T12:00:00Z")
    #expect(metadata.quickTimeCreationDate == nil && metadata.location == nil)
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
    #expect(metadata.duration == 1)
  }
}
