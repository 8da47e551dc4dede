import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

private func read(_ bytes: [UInt8]) -> MediaMetadata {
  BigTIFFReader.read(from: ArrayByteSource(bytes))
}

private func messages(_ metadata: MediaMetadata) -> String {
  metadata.problems.map(\.message).joined(separator: " | ")
}

/// A BigTIFF with a size, orientation and date in IFD0, a capture date in the EXIF IFD and
/// a position in the GPS IFD.
private func fullBuilder(bigEndian: Bool = false, pointerType: UInt16 = 18) -> BigTIFFTestBuilder {
  var builder = BigTIFFTestBuilder()
  builder.bigEndian = bigEndian
  builder.pointerType = pointerType
  builder.ifd0 = [
    builder.short(EXIFTag.imageWidth, [640]), builder.long(EXIFTag.imageLength, [480]),
    builder.short(EXIFTag.orientation, [8]),
    builder.ascii(EXIFTag.dateTime, "2024:05:06 07:08:09"),
  ]
  builder.exif = [
    builder.ascii(EXIFTag.dateTimeOriginal, "2024:05:06 07:08:00"),
    builder.ascii(EXIFTag.offsetTimeOriginal, "+09:00"),
  ]
  builder.gps = [
    builder.ascii(EXIFTag.gpsLatitudeRef, "S"),
    builder.rational(EXIFTag.gpsLatitude, [(33, 1), (45, 1), (0, 1)]),
    builder.ascii(EXIFTag.gpsLongitudeRef, "E"),
    builder.rational(EXIFTag.gpsLongitude, [(151, 1), (12, 1), (36, 1)]),
  ]
  return builder
}

@Suite struct BigTIFFReaderTests {
  @Test(arguments: [(false, UInt16(18)), (true, 16), (false, 4), (true, 13)])
  func readsIFD0AndTheEXIFAndGPSIFDs(bigEndian: Bool, pointerType: UInt16) throws {
    let metadata = read(fullBuilder(bigEndian: bigEndian, pointerType: pointerType).file())
    #expect(metadata.problems.isEmpty, "\(messages(metadata))")
    #expect(metadata.pixelWidth == 640)
    #expect(metadata.pixelHeight == 480)
    #expect(metadata.orientation == 8)
    #expect(metadata.displayedWidth == 480)
    #expect(metadata.dateTime == "2024:05:06 07:08:09")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2024-05-06T07:08:00+09:00")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - -33.75) < 1e-9)
    #expect(abs(location.longitude - (151 + 12.0 / 60 + 36.0 / 3600)) < 1e-9)
  }

  @Test(arguments: [false, true])
  func aSizeInLONG8IsRead(bigEndian: Bool) {
    var builder = BigTIFFTestBuilder()
    builder.bigEndian = bigEndian
    builder.ifd0 = [
      builder.long8(EXIFTag.imageWidth, [100_000]), builder.long8(EXIFTag.imageLength, [3]),
    ]
    let metadata = read(builder.file())
    #expect(metadata.problems.isEmpty, "\(messages(metadata))")
    #expect(metadata.pixelWidth == 100_000)
    #expect(metadata.pixelHeight == 3)
  }

  @Test func aLONG8SizeBeyond32BitsIsNoSize() {
    var builder = BigTIFFTestBuilder()
    builder.ifd0 = [
      builder.long8(EXIFTag.imageWidth, [1 << 40]), builder.long8(EXIFTag.imageLength, [3]),
    ]
    #expect(read(builder.file()).pixelWidth == nil)
  }

  @Test func everyPrefixReadsWithoutTrappingAndNeverInventsValues() {
    let file = fullBuilder().file()
    for count in 0...file.count {
      let metadata = BigTIFFReader.read(from: PrefixSource(base: file, count: count))
      if count < file.count {
        #expect(!metadata.problems.isEmpty, "prefix \(count) of \(file.count)")
      }
      if let width = metadata.pixelWidth { #expect(width == 640, "prefix \(count)") }
      if let date = metadata.dateTimeOriginal {
        #expect(date.iso8601 == "2024-05-06T07:08:00+09:00", "prefix \(count)")
      }
    }
  }

  @Test func everySingleByteCorruptionReadsWithoutTrapping() {
    let file = fullBuilder().file()
    var reported = 0
    for offset in file.indices {
      for value: UInt8 in [0x00, 0xFF, 0x7F, 0x10] {
        var bytes = file
        bytes[offset] = value
        if expectReaderInvariants(read(bytes), "byte \(offset) = \(value)") { reported += 1 }
      }
    }
    // A broken header or directory is reported, not passed over in silence.
    #expect(reported > 0)
  }

  @Test func pointersBackToReadIFDsEndTheWalk() {
    var builder = BigTIFFTestBuilder()
    builder.ifd0 = [
      builder.short(EXIFTag.imageWidth, [8]), builder.short(EXIFTag.imageLength, [8]),
      // Both sub-IFD pointers lead back to IFD0, at offset 16.
      BigTIFFTestBuilder.Entry(tag: EXIFTag.exifIFDPointer, type: 18, count: 1, field: 16),
      BigTIFFTestBuilder.Entry(tag: EXIFTag.gpsInfoIFDPointer, type: 16, count: 1, field: 16),
    ]
    let metadata = read(builder.file())
    #expect(metadata.pixelWidth == 8)
    #expect(messages(metadata).contains("already read"))
  }

  @Test func aHugeEntryCountReadsOnlyWhatTheFileHolds() {
    var bytes = fullBuilder().file()
    // IFD0's 8-byte entry count, just after the 16-byte header.
    bytes.replaceSubrange(16..<24, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
    let metadata = read(bytes)
    #expect(messages(metadata).contains("declares"))
    #expect(metadata.pixelWidth == 640)
  }

  @Test func hugeValueCountsAreFaultsNotAllocations() {
    var builder = BigTIFFTestBuilder()
    builder.ifd0 = [
      builder.short(EXIFTag.imageWidth, [8]), builder.short(EXIFTag.imageLength, [8]),
      // count × 8 overflows; an ASCII count far past the end of the file.
      BigTIFFTestBuilder.Entry(tag: EXIFTag.orientation, type: 16, count: 1 << 62, field: 64),
      BigTIFFTestBuilder.Entry(tag: EXIFTag.dateTime, type: 2, count: 1 << 40, field: 64),
    ]
    let metadata = read(builder.file())
    #expect(metadata.pixelWidth == 8)
    #expect(metadata.orientation == nil)
    #expect(metadata.dateTime == nil)
    #expect(messages(metadata).contains("outside the file"))
  }

  @Test func aFirstIFDOffsetPastTheEndIsAProblem() {
    var builder = fullBuilder()
    builder.firstDirectoryOffset = 1 << 50
    let metadata = read(builder.file())
    #expect(metadata.pixelWidth == nil)
    #expect(messages(metadata).contains("IFD0 could not be read"))
  }

  @Test(
    arguments: [
      [0x49, 0x49, 0x2B, 0x00, 0x04, 0x00, 0x00, 0x00],  // 4-byte offsets
      [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x01, 0x00],  // reserved not zero
      [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00],  // classic TIFF
    ] as [[UInt8]])
  func aHeaderThatIsNotBigTIFFsIsAProblem(start: [UInt8]) {
    let metadata = read(start + [UInt8](repeating: 0, count: 64))
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(metadata.pixelWidth == nil)
  }

  @Test func aFailingSourceIsAProblem() {
    let metadata = BigTIFFReader.read(from: FailingSource(count: 1 << 20))
    #expect(metadata.problems.map(\.code) == [.unreadable])
  }

  @Test func aFiveGigabyteFileIsReadInSmallPieces() {
    let file = fullBuilder().file()
    let source = SparseSource(count: 5 << 30, runs: [(0, file)])
    let metadata = BigTIFFReader.read(from: source)
    #expect(metadata.pixelWidth == 640)
    #expect(source.bytesRead < 4096)
  }
}
