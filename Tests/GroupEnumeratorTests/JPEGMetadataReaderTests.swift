import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Reads a built JPEG.
private func read(_ bytes: [UInt8]) -> MediaMetadata {
  JPEGMetadataReader.read(from: ArrayByteSource(bytes))
}

/// A builder whose GPS IFD holds the given position.
private func gpsBuilder(
  latitudeRef: String = "N", latitude: [(UInt32, UInt32)] = [(35, 1), (30, 1), (0, 1)],
  longitudeRef: String = "E", longitude: [(UInt32, UInt32)] = [(139, 1), (45, 1), (36, 1)]
) -> EXIFTestBuilder {
  var builder = EXIFTestBuilder()
  builder.gps = [
    (0x0001, .ascii(latitudeRef)), (0x0002, .rational(latitude)),
    (0x0003, .ascii(longitudeRef)), (0x0004, .rational(longitude)),
  ]
  return builder
}

private typealias Triple = [(UInt32, UInt32)]

/// Latitude/longitude pairs that are out of range: > 90° or 180°, minutes or seconds ≥ 60.
private let outOfRangePositions: [(Triple, Triple)] = [
  ([(91, 1), (0, 1), (0, 1)], [(10, 1), (0, 1), (0, 1)]),
  ([(10, 1), (0, 1), (0, 1)], [(181, 1), (0, 1), (0, 1)]),
  ([(500, 1), (75, 1), (99, 1)], [(10, 1), (0, 1), (0, 1)]),
  ([(10, 1), (60, 1), (0, 1)], [(10, 1), (0, 1), (0, 1)]),
  ([(10, 1), (0, 1), (61, 1)], [(10, 1), (0, 1), (0, 1)]),
  ([(0xFFFF_FFFF, 1), (0, 1), (0, 1)], [(10, 1), (0, 1), (0, 1)]),
]

private func codes(_ metadata: MediaMetadata) -> [AssetProblem.Code] {
  metadata.problems.map(\.code)
}

@Suite struct JPEGMetadataReaderGPSTests {
  @Test(arguments: [("N", "E", 1.0, 1.0), ("N", "W", 1, -1), ("S", "E", -1, 1), ("S", "W", -1, -1)])
  func hemispheresGiveSignedDegrees(
    latitudeRef: String, longitudeRef: String, latitudeSign: Double, longitudeSign: Double
  ) throws {
    let metadata = read(gpsBuilder(latitudeRef: latitudeRef, longitudeRef: longitudeRef).jpeg())
    let location = try #require(metadata.location, "\(latitudeRef)\(longitudeRef)")
    #expect(abs(location.latitude - latitudeSign * 35.5) < 1e-9)
    #expect(abs(location.longitude - longitudeSign * (139 + 45.0 / 60 + 36.0 / 3600)) < 1e-9)
    #expect(location.altitude == nil)
    #expect(metadata.problems.isEmpty)
  }

  @Test func exactlySixtySecondsIsAWritersRoundingAndAccepted() throws {
    let metadata = read(gpsBuilder(latitude: [(37, 1), (47, 1), (60, 1)]).jpeg())
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 37.8) < 1e-9)
    #expect(metadata.problems.isEmpty)
  }

  @Test func zeroOverZeroSecondsCountAsZero() throws {
    let metadata = read(gpsBuilder(latitude: [(35, 1), (30, 1), (0, 0)]).jpeg())
    let location = try #require(metadata.location)
    #expect(location.latitude == 35.5)
  }

  @Test(arguments: [
    [(UInt32(35), UInt32(0)), (30, 1), (0, 1)], [(35, 1), (30, 0), (0, 1)],
    [(35, 1), (30, 1), (7, 0)],
  ])
  func nonZeroOverZeroRejectsTheLocation(latitude: [(UInt32, UInt32)]) {
    let metadata = read(gpsBuilder(latitude: latitude).jpeg())
    #expect(metadata.location == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test(arguments: outOfRangePositions)
  func outOfRangeRejectsTheLocation(
    latitude: [(UInt32, UInt32)], longitude: [(UInt32, UInt32)]
  ) {
    let metadata = read(gpsBuilder(latitude: latitude, longitude: longitude).jpeg())
    #expect(metadata.location == nil, "\(latitude) \(longitude)")
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test(arguments: ["X", "", "NS", "n"])
  func aReferenceOtherThanNOrSRejectsTheLocation(reference: String) {
    let metadata = read(gpsBuilder(latitudeRef: reference).jpeg())
    #expect(metadata.location == nil, "'\(reference)'")
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func aMissingReferenceRejectsTheLocation() {
    var builder = gpsBuilder()
    builder.gps.removeAll { $0.0 == 0x0003 }
    let metadata = read(builder.jpeg())
    #expect(metadata.location == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func wrongTypeOrCountRejectsTheLocation() {
    var short = gpsBuilder()
    short.gps[1] = (0x0002, .short([35, 30, 0]))
    var two = gpsBuilder()
    two.gps[1] = (0x0002, .rational([(35, 1), (30, 1)]))
    for builder in [short, two] {
      let metadata = read(builder.jpeg())
      #expect(metadata.location == nil)
      #expect(codes(metadata) == [.invalidValue])
    }
  }

  @Test func nonNegativeSignedRationalsAreAccepted() throws {
    var builder = gpsBuilder()
    builder.gps[1] = (0x0002, .signedRational([(35, 1), (30, 1), (0, 1)]))
    #expect(try #require(read(builder.jpeg()).location).latitude == 35.5)
    builder.gps[1] = (0x0002, .signedRational([(-35, 1), (30, 1), (0, 1)]))
    #expect(read(builder.jpeg()).location == nil)
    builder.gps[1] = (0x0002, .signedRational([(Int32(35), Int32.min), (30, 1), (0, 1)]))
    #expect(read(builder.jpeg()).location == nil)
  }

  @Test func altitudeBelowSeaLevelIsNegative() throws {
    var builder = gpsBuilder()
    builder.gps += [(0x0005, .byte([1])), (0x0006, .rational([(125, 10)]))]
    let location = try #require(read(builder.jpeg()).location)
    #expect(location.altitude == -12.5)
    builder.gps[4] = (0x0005, .byte([0]))
    #expect(try #require(read(builder.jpeg()).location).altitude == 12.5)
  }

  @Test func aBadAltitudeKeepsThePosition() throws {
    var builder = gpsBuilder()
    builder.gps += [(0x0006, .rational([(125, 0)]))]
    let metadata = read(builder.jpeg())
    let location = try #require(metadata.location)
    #expect(location.altitude == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func bigEndianBlocksReadTheSame() throws {
    var builder = gpsBuilder(latitudeRef: "S", longitudeRef: "W")
    builder.bigEndian = true
    builder.exif = [(0x9003, .ascii("2019:05:01 12:34:56"))]
    let metadata = read(builder.jpeg())
    #expect(try #require(metadata.location).latitude == -35.5)
    #expect(metadata.dateTimeOriginal?.exifText == "2019:05:01 12:34:56")
  }
}

@Suite struct JPEGMetadataReaderDateTests {
  @Test(arguments: [
    "0000:00:00 00:00:00", "2020:13:45 25:61:61", "2020:02:30 12:00:00", "    :  :     :  :  ",
    "", "2020", "2020:01:01 12:00:00 xyz", "2020-01-01T12:00:00 +09",
    "2021:02:29 00:00:00", "2020:01:01 24:00:00", "+020:01:01 12:00:00",
  ])
  func impossibleDatesAreAbsentWithAProblem(text: String) {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .ascii(text))]
    builder.exif = [(0x9003, .ascii(text)), (0x9004, .ascii(text))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTime == nil, "'\(text)'")
    #expect(metadata.modificationDateTime == nil)
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.dateTimeDigitized == nil)
    #expect(codes(metadata) == [.invalidValue, .invalidValue, .invalidValue], "'\(text)'")
  }

  @Test func nonUTF8BytesAreRejectedWithoutACrash() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .asciiBytes([0xFF, 0xFE, 0x32, 0x30]))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTime == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func paddingAndAMissingNULAreTolerated() throws {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .asciiBytes(Array("2020:02:29 23:59:59  ".utf8) + [0, 0]))]
    builder.exif = [(0x9003, .asciiBytes(Array("9999:12:31 23:59:59".utf8)))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTime == "2020:02:29 23:59:59")
    let modification = try #require(metadata.modificationDateTime)
    #expect(modification.source == .exifDateTime)
    #expect(modification.zone == .unknown)
    #expect(metadata.dateTimeOriginal?.exifText == "9999:12:31 23:59:59")
    #expect(metadata.problems.isEmpty)
  }

  @Test func offsetAndSubsecondsComplete() throws {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .ascii("2019:05:02 08:00:00"))]
    builder.exif = [
      (0x9003, .ascii("2019:05:01 12:34:56")), (0x9011, .ascii("+09:00")),
      (0x9291, .ascii("120")), (0x9004, .ascii("2019:05:01 12:34:57")),
      (0x9012, .ascii("-03:30")), (0x9292, .ascii(" 5 ")), (0x9010, .ascii("+01:00")),
    ]
    let metadata = read(builder.jpeg())
    let original = try #require(metadata.dateTimeOriginal)
    #expect(original.iso8601 == "2019-05-01T12:34:56.120+09:00")
    #expect(original.source == .exifDateTimeOriginal)
    let digitized = try #require(metadata.dateTimeDigitized)
    #expect(digitized.iso8601 == "2019-05-01T12:34:57.5-03:30")
    #expect(digitized.source == .exifDateTimeDigitized)
    #expect(metadata.modificationDateTime?.iso8601 == "2019-05-02T08:00:00+01:00")
    #expect(metadata.problems.isEmpty)
  }

  @Test func aBadOffsetLeavesTheZoneUnknown() throws {
    var builder = EXIFTestBuilder()
    builder.exif = [(0x9003, .ascii("2019:05:01 12:34:56")), (0x9011, .ascii("+9:00"))]
    let metadata = read(builder.jpeg())
    #expect(try #require(metadata.dateTimeOriginal).zone == .unknown)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func aBlankOffsetIsAbsentWithoutAProblem() throws {
    var builder = EXIFTestBuilder()
    builder.exif = [(0x9003, .ascii("2019:05:01 12:34:56")), (0x9011, .ascii("      "))]
    let metadata = read(builder.jpeg())
    #expect(try #require(metadata.dateTimeOriginal).zone == .unknown)
    #expect(metadata.problems.isEmpty)
  }

  @Test func dateTimeOriginalInIFD0IsRead() throws {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0110, .ascii("Model")), (0x9003, .ascii("2018:01:02 03:04:05"))]
    let original = try #require(read(builder.jpeg()).dateTimeOriginal)
    #expect(original.exifText == "2018:01:02 03:04:05")
    #expect(original.source == .exifDateTimeOriginal)
  }

  @Test func anISO8601DateTimeIsKeptRawWithItsOwnOffset() throws {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .ascii("2023-09-27T14:32:53+02:00"))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTime == "2023-09-27T14:32:53+02:00")
    let date = try #require(metadata.modificationDateTime)
    #expect(date.iso8601 == "2023-09-27T14:32:53+02:00")
    #expect(metadata.problems.isEmpty)
  }

  @Test(arguments: ["2023-09-27T14:32:53+2:00", "2023:09-27 14:32:53", "2023-09-27T14:32:53 junk"])
  func malformedISO8601DatesAreRejected(text: String) {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .ascii(text))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTime == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func aDateStoredAsAnotherTypeIsRejected() {
    var builder = EXIFTestBuilder()
    builder.exif = [(0x9003, .short([2019]))]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTimeOriginal == nil)
    #expect(codes(metadata) == [.invalidValue])
  }
}

@Suite struct JPEGMetadataReaderImageTests {
  @Test func sizeComesFromTheFrameHeader() {
    var builder = EXIFTestBuilder()
    builder.exif = [(0xA002, .long([4000])), (0xA003, .long([3000]))]
    let metadata = read(builder.jpeg(width: 640, height: 480))
    #expect(metadata.pixelWidth == 640)
    #expect(metadata.pixelHeight == 480)
  }

  @Test func sizeFallsBackToPixelDimensionsWithoutAFrame() {
    var builder = EXIFTestBuilder()
    builder.exif = [(0xA002, .short([400])), (0xA003, .long([300]))]
    let payload = builder.app1Payload()
    let length = payload.count + 2
    let bytes: [UInt8] =
      [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 400)
    #expect(metadata.pixelHeight == 300)
    #expect(codes(metadata) == [.truncated])
  }

  @Test func orientationSixSwapsTheDisplayedSize() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, .short([6]))]
    let metadata = read(builder.jpeg(width: 640, height: 480))
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 480)
    #expect(metadata.displayedHeight == 640)
  }

  @Test(arguments: [
    EXIFTestBuilder.Value.long([6]), .raw(type: 9, count: 1, field: 6), .short([6]),
  ])
  func orientationIsReadFromAnyWholeNumberType(value: EXIFTestBuilder.Value) {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, value)]
    let metadata = read(builder.jpeg())
    #expect(metadata.orientation == 6)
    #expect(metadata.problems.isEmpty)
  }

  @Test func orientationZeroMeansNotSet() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, .short([0]))]
    let metadata = read(builder.jpeg())
    #expect(metadata.orientation == nil)
    #expect(metadata.problems.isEmpty)
  }

  @Test(arguments: [EXIFTestBuilder.Value.short([9]), .short([6, 6]), .ascii("6")])
  func anInvalidOrientationIsAbsentWithAProblem(value: EXIFTestBuilder.Value) {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, value)]
    let metadata = read(builder.jpeg())
    #expect(metadata.orientation == nil)
    #expect(codes(metadata) == [.invalidValue])
  }

  @Test func aThumbnailInIFD1IsFound() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, .short([1]))]
    builder.thumbnail = [0xFF, 0xD8, 0xFF, 0xD9]
    #expect(read(builder.jpeg()).hasThumbnail)
    builder.thumbnail = nil
    #expect(!read(builder.jpeg()).hasThumbnail)
  }
}

@Suite struct JPEGMetadataReaderStructureTests {
  @Test func anEmptyFileIsReported() {
    #expect(codes(read([])) == [.emptyFile])
  }

  @Test func aNonJPEGIsReported() {
    #expect(codes(read(Array("GIF89a".utf8))) == [.unrecognizedFormat])
    #expect(codes(read([0xFF])) == [.unrecognizedFormat])
  }

  @Test func soiAloneIsTruncated() {
    #expect(codes(read([0xFF, 0xD8])) == [.truncated])
  }

  @Test func anAPP1LengthPastTheEndIsTruncated() {
    let metadata = read([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + Array("Exif".utf8) + [0, 0])
    #expect(codes(metadata) == [.truncated])
    #expect(metadata.dateTime == nil)
  }

  @Test(arguments: [0, 1])
  func aSegmentLengthUnderTwoIsMalformed(length: UInt8) {
    #expect(codes(read([0xFF, 0xD8, 0xFF, 0xE1, 0x00, length, 0, 0, 0, 0])) == [.malformed])
  }

  @Test func fillBytesAndTEMAreSkipped() {
    var bytes = EXIFTestBuilder.jpeg(app1: nil, width: 8, height: 4)
    bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0x01], at: 2)
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 8)
    #expect(metadata.problems.isEmpty)
  }

  @Test func aStrayRestartMarkerIsReportedOnce() {
    var bytes = EXIFTestBuilder.jpeg(app1: nil, width: 8, height: 4)
    bytes.insert(contentsOf: [0xFF, 0xD0, 0xFF, 0xD1], at: 2)
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 8)
    #expect(codes(metadata) == [.malformed])
  }

  @Test func garbageWhereAMarkerShouldBeIsMalformed() {
    #expect(codes(read([0xFF, 0xD8, 0x12, 0x34])) == [.malformed])
  }

  @Test func anAPP1ThatIsNotEXIFIsSkipped() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, .short([3]))]
    var bytes = builder.jpeg()
    let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)
    let length = xmp.count + 2
    bytes.insert(
      contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + xmp, at: 2)
    #expect(read(bytes).orientation == 3)
  }

  @Test func truncationAtEveryOffsetNeverTraps() throws {
    var builder = gpsBuilder()
    builder.ifd0 = [(0x0112, .short([6])), (0x0132, .ascii("2019:05:02 08:00:00"))]
    builder.exif = [(0x9003, .ascii("2019:05:01 12:34:56")), (0x9011, .ascii("+09:00"))]
    builder.thumbnail = [0xFF, 0xD8, 0xFF, 0xD9]
    let bytes = builder.jpeg()
    let full = read(bytes)
    #expect(full.problems.isEmpty)
    #expect(full.location != nil)
    let scanStart = try #require(
      bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
    for length in 0..<bytes.count {
      let metadata = read(Array(bytes.prefix(length)))
      // Every cut is a problem; one after SOS (the end-of-image marker is gone) is only that.
      #expect(!metadata.problems.isEmpty, "prefix \(length)")
      if length >= scanStart + 2 { #expect(codes(metadata) == [.truncated], "prefix \(length)") }
      // The EXIF block is used only when its segment is complete.
      if metadata.dateTimeOriginal != nil { #expect(length >= 6 + builder.app1Payload().count) }
    }
  }
}

@Suite struct JPEGMetadataReaderFallbackTests {
  /// Samsung-style: a `JPEGInterchangeFormat` offset past the block before `ExifIFDPointer`.
  private func samsungStyle() -> EXIFTestBuilder {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [
      (0x010F, .ascii("SAMSUNG")), (0x0201, .raw(type: 4, count: 1, field: 0x00FF_FFFF)),
      (0x0202, .long([1000])),
    ]
    builder.exif = [(0x9003, .ascii("2012:03:04 05:06:07")), (0x9011, .ascii("+02:00"))]
    builder.gps = [
      (0x0001, .ascii("N")), (0x0002, .rational([(10, 1), (0, 1), (0, 1)])),
      (0x0003, .ascii("W")), (0x0004, .rational([(20, 1), (0, 1), (0, 1)])),
    ]
    return builder
  }

  @Test func anOutOfRangePointerDoesNotLoseTheEXIFIFD() throws {
    let metadata = read(samsungStyle().jpeg())
    let original = try #require(metadata.dateTimeOriginal)
    #expect(original.iso8601 == "2012-03-04T05:06:07+02:00")
    #expect(metadata.location?.longitude == -20)
    #expect(codes(metadata) == [.malformed])
  }

  @Test func anIFDPointingToItselfTerminates() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [
      (0x0201, .raw(type: 4, count: 1, field: 0xFFFF_FFFF)),
      (0x8769, .raw(type: 4, count: 1, field: 8)), (0x8825, .raw(type: 4, count: 1, field: 8)),
    ]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTimeOriginal == nil)
  }

  @Test func anEntryCountRunningPastTheEndIsBounded() {
    var tiff = samsungStyle().tiff()
    tiff[8] = 0xFF
    tiff[9] = 0xFF
    let metadata = read(EXIFTestBuilder.jpeg(app1: [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff))
    #expect(metadata.pixelWidth == 64)
  }

  @Test func hugeCountsAndOffsetsAreDropped() {
    var builder = samsungStyle()
    builder.exif = [
      (0x9003, .raw(type: 2, count: 20, field: 0x00FF_FFFF)),
      (0x9011, .raw(type: 5, count: 0x2000_0001, field: 16)),
    ]
    let metadata = read(builder.jpeg())
    #expect(metadata.dateTimeOriginal == nil)
  }
}
