import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Fixtures/Phones`, made by `Fixtures/make-phones.sh` the way phones and
/// editors write them (see `Fixtures/Phones.md`).
private func read(_ path: String, as format: MediaFormat) throws -> MediaMetadata {
  MetadataReaderTable.read(from: ArrayByteSource(try Sample.phones.bytes(path)), format: format)
}

@Suite struct PhoneFileTests {
  @Test func aFractionInsideDateTimeOriginalIsItsSubsecondsNotAReasonToFallBack() throws {
    let metadata = try read("Dates/fraction.jpg", as: .jpeg)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let original = try #require(metadata.dateTimeOriginal)
    #expect(original.iso8601 == "2018-06-26T17:46:33.847")
    #expect(original.source == .exifDateTimeOriginal)
    // DateTimeDigitized, seven years earlier, is still read but never preferred.
    #expect(metadata.dateTimeDigitized?.iso8601 == "2011-01-01T00:00:00")
  }

  @Test func anISOFormDateTimeOriginalIsRead() throws {
    let metadata = try read("Dates/iso.jpg", as: .jpeg)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2023-10-02T10:00:00")
  }

  @Test func aSamsungHEICWithoutIrotIsTurnedByItsEXIFOrientation() throws {
    let metadata = try read("Samsung/20240101_120000.heic", as: .heic)
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 48 && metadata.displayedHeight == 64)
  }

  @Test func aSamsungAltitudeReferenceStoredAsAShortIsRead() throws {
    let metadata = try read("Samsung/20240101_120000.heic", as: .heic)
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 52.52) < 1e-6 && abs(location.longitude - 13.405) < 1e-6)
    #expect(location.altitude == -12.5)
    #expect(!metadata.problems.contains { $0.message.contains("altitude") })
  }

  @Test(arguments: [
    ("2018:06:26 17:46:33.", EXIFDateText.Parsed.invalid),
    ("2018:06:26 17:46:33.5x", .invalid),
    ("2018:06:26 17:46:33x", .invalid),
  ])
  func aFractionMustBeDigitsAndNothingAfterIt(text: String, expected: EXIFDateText.Parsed) {
    #expect(EXIFDateText.parseDate(Array(text.utf8)) == expected)
  }

  @Test func anISODateCanCarryAFractionAndAZone() {
    let parsed = EXIFDateText.parseDate(Array("2023-10-02T10:00:00.25+02:00\0".utf8))
    guard case .date(_, _, _, _, _, _, let subsecond, _, let zone) = parsed else {
      Issue.record("not a date: \(parsed)")
      return
    }
    #expect(subsecond == "25")
    #expect(zone == .offset(seconds: 7200))
  }

  @Test func anEditorsJPEGTakesItsDateAndPlaceFromXMPWhenItsEXIFHasNone() async throws {
    let library = AssetsLibrary(root: Sample.phones.url.appendingPathComponent("XMP"))
    let asset = try #require(try await library.asset(at: LibraryPath("edited.jpg")))
    #expect(asset.problems.isEmpty, "\(asset.problems)")
    #expect(asset.creationDate?.iso8601 == "2019-07-14T15:30:00+02:00")
    #expect(asset.creationDate?.source == .xmpEXIFDateTimeOriginal)
    #expect(asset.creationDate?.source.rawValue == "xmp:exif:DateTimeOriginal")
    let location = try #require(asset.location)
    #expect(abs(location.latitude - 43.7384) < 1e-9 && abs(location.longitude - -7.4246) < 1e-9)
  }

  @Test func theFilesOwnEXIFDateWinsOverItsXMP() throws {
    // A motion photo's still: EXIF DateTimeOriginal 11:00:00 +01:00, and XMP (the motion
    // photo's description) without a date.
    let metadata = try read("Motion/PXL_20240202_100000000.MP.jpg", as: .jpeg)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2024-02-02T11:00:00+01:00")
    #expect(metadata.xmpDate == nil)
  }

  @Test func anFFmpegMP4sPlaceInItsItemListIsRead() throws {
    let metadata = try read("Android/VID_20230501_080000.mp4", as: .mp4)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 48.8584) < 1e-9 && abs(location.longitude - 2.2945) < 1e-9)
    #expect(location.altitude == 35)
    #expect(metadata.duration == 1)
  }

  @Test func aThreeGPPLocationBoxIsRead() throws {
    let metadata = try read("Android/clip.3gp", as: .threeGPP)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let location = try #require(metadata.location)
    // 16.16 fixed point: within 1/65536 of a degree.
    #expect(abs(location.latitude - 35.6895) < 2e-5 && abs(location.longitude - 139.6917) < 2e-5)
  }

  @Test(arguments: [
    ("no name terminator", [UInt8](repeating: 0x41, count: 12)),
    ("numbers cut short", [0, 0, 0, 0, 0x15, 0xC7, 0x00, 0x00, 0x00, 0x01, 0x02]),
  ])
  func aCutLocationBoxIsMalformedNotAPlace(name: String, content: [UInt8]) {
    let box = [0, 0, 0, UInt8(8 + content.count)] + Array("loci".utf8) + content
    #expect(throws: BoxParsingError.self, "\(name)") {
      let header = try BoxHeader(parsing: box, at: 0, parentEnd: box.count)
      _ = try LocationInformationBox(
        parsing: BoxContent(header: header, bytes: Array(box[header.headerLength...])))
    }
  }

  @Test func anIFD1ThumbnailThatIsNotAJPEGIsNotOfferedAndIsReported() throws {
    let metadata = try read("Thumbnails/not-a-thumbnail.jpg", as: .jpeg)
    #expect(!metadata.hasThumbnail)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.problems.first?.message.contains("is not a JPEG") == true)
    let bytes = [UInt8](
      try Data(
        contentsOf: Sample.phones.url.appendingPathComponent("Thumbnails/not-a-thumbnail.jpg")))
    #expect(JPEGMetadataReader.thumbnail(from: ArrayByteSource(bytes)) == nil)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2021-01-01T01:01:01")
  }
}
