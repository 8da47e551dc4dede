import Foundation
import Testing

@testable import GroupEnumerator

/// The forms real cameras and phones write that the readers' first versions missed, on the
/// files `Resources/make-edge-formats.sh` makes with FFmpeg, ExifTool and Python.
@Suite struct EdgeFormatTests {
  func bytes(_ name: String) throws -> [UInt8] { try TestMovies.bytes("EdgeFormats/" + name) }

  func avi(_ name: String) throws -> MediaMetadata {
    AVIMetadataReader.read(from: ArrayByteSource(try bytes(name)), format: .avi)
  }

  /// The asset an enumeration makes of one file.
  func asset(_ name: String, as fileName: String? = nil) async throws -> Asset {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write(try bytes(name), as: fileName ?? name)
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    return try #require(contents.assets.first)
  }

  // MARK: AVI recording dates

  @Test func anAVIsIDITInAsctimeFormIsItsRecordingDate() throws {
    let metadata = try avi("idit-asctime.avi")
    #expect(metadata.problems == [])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2012-09-10T20:52:00")
    #expect(metadata.dateTimeOriginal?.source == .aviIDIT)
    #expect(metadata.pixelWidth == 32 && metadata.pixelHeight == 16)
  }

  @Test func anAVIsIDITInEXIFFormIsItsRecordingDate() throws {
    let metadata = try avi("idit-exif.avi")
    #expect(metadata.problems == [])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2012-09-10T20:52:00")
    #expect(metadata.dateTimeOriginal?.source == .aviIDIT)
  }

  @Test func anAVIsICRDIsTheDateWithoutIDIT() throws {
    let timed = try avi("icrd-time.avi")
    #expect(timed.problems == [])
    #expect(timed.dateTimeOriginal?.iso8601 == "2013-04-05T06:07:08")
    #expect(timed.dateTimeOriginal?.source == .aviICRD)
    let day = try avi("icrd-date-only.avi")
    #expect(day.problems == [])
    #expect(day.dateTimeOriginal?.iso8601 == "2012-09-10T00:00:00")
    #expect(day.dateTimeOriginal?.source == .aviICRDDateOnly)
    #expect(day.dateTimeOriginal?.source.isDateOnly == true)
  }

  @Test func anAVIAssetIsDatedByItsIDIT() async throws {
    let asset = try await asset("idit-asctime.avi")
    #expect(asset.type == .video)
    #expect(asset.creationDate?.source == .aviIDIT)
    #expect(asset.creationDate?.iso8601 == "2012-09-10T20:52:00")
  }

  @Test func aBadIDITIsReportedAndICRDTakesOver() throws {
    var file = try bytes("idit-asctime.avi")
    let marker = Array("MON SEP".utf8)
    let at = try #require(
      (0...(file.count - marker.count)).first { Array(file[$0..<($0 + marker.count)]) == marker })
    file.replaceSubrange(at..<(at + 3), with: Array("XYZ".utf8))
    file.replaceSubrange((at + 4)..<(at + 7), with: Array("FOO".utf8))
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(file), format: .avi)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2001-02-03T00:00:00")
    #expect(metadata.dateTimeOriginal?.source == .aviICRDDateOnly)
  }

  @Test(arguments: [
    ("MON SEP 10 20:52:00 2012\n", "2012-09-10T20:52:00"),
    ("Mon Sep 10 20:52:00 2012\n\0", "2012-09-10T20:52:00"),
    ("Tue Jan  1 00:00:00 2013", "2013-01-01T00:00:00"),
    ("WED FEB 29 23:59:59 2012\r\n", "2012-02-29T23:59:59"),
    ("2012:09:10 20:52:00", "2012-09-10T20:52:00"),
    ("2012-09-10 20:52:00\0", "2012-09-10T20:52:00"),
    ("2012/09/10 20:52", "2012-09-10T20:52:00"),
    ("2012-09-10T20:52:00", "2012-09-10T20:52:00"),
  ])
  func iditForms(text: String, iso8601: String) throws {
    let parsed = try #require(
      AVIDateText.parse(Array(text.utf8), source: .aviIDIT, allowsDateOnly: false))
    #expect(parsed.date.iso8601 == iso8601 && parsed.hasTime)
  }

  @Test(arguments: [
    "", "\n", "MON SEP 10 20:52:00", "MON SEPT 10 20:52:00 2012", "MON SEP 31 20:52:00 2012",
    "MON SEP 10 24:52:00 2012", "MON SEP 10 20:52 2012", "MON SEP 10 20:52:00 12",
    "2012-09-10", "2012:09-10 20:52:00", "2012:09:10 20:52:00 PM", "10/09/2012 20:52:00",
    "2012:13:10 20:52:00", "2012:00:00 00:00:00", "MON SEP 10 20:52:00 2012 extra",
    String(repeating: "9", count: 10_000),
  ])
  func iditGarbageIsRefused(text: String) {
    #expect(AVIDateText.parse(Array(text.utf8), source: .aviIDIT, allowsDateOnly: false) == nil)
  }

  // MARK: 3GPP date

  @Test func a3GPPDateBeatsTheMovieHeader() async throws {
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(try bytes("3gpp-date.mp4")))
    #expect(metadata.problems == [])
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2020-11-20T15:04:02+01:00")
    #expect(metadata.quickTimeCreationDate?.source == .threeGPPDate)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2020-11-20T14:04:36Z")
    let asset = try await asset("3gpp-date.mp4")
    #expect(asset.creationDate?.source == .threeGPPDate)
    #expect(asset.creationDate?.iso8601 == "2020-11-20T15:04:02+01:00")
  }

  @Test func aBad3GPPDateIsReportedAndTheMovieHeaderStays() throws {
    var file = try bytes("3gpp-date.mp4")
    let marker = Array("2020-11-20T".utf8)
    let at = try #require(
      (0...(file.count - marker.count)).first { Array(file[$0..<($0 + marker.count)]) == marker })
    file[at + 5] = UInt8(ascii: "x")
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(file))
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.quickTimeCreationDate == nil)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2020-11-20T14:04:36Z")
  }
}
