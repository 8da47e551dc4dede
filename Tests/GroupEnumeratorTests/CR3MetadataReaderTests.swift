import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

private func read(_ bytes: [UInt8]) -> MediaMetadata {
  CR3MetadataReader.read(from: ArrayByteSource(bytes))
}

private func messages(_ metadata: MediaMetadata) -> String {
  metadata.problems.map(\.message).joined(separator: " | ")
}

/// `CMT1`: IFD0 with a 6000×4000 size in `SHORT`s, orientation 6 and the modification date.
private func cmt1(bigEndian: Bool = false) -> [UInt8] {
  BoxBuilder.standaloneTIFF(
    [
      (EXIFTag.imageWidth, .short([6000])), (EXIFTag.imageLength, .short([4000])),
      (0x010F, .ascii("Canon")), (EXIFTag.orientation, .short([6])),
      (EXIFTag.dateTime, .ascii("2025:09:06 20:24:47")),
    ], bigEndian: bigEndian)
}

/// `CMT2`: the EXIF IFD with the capture date, its offset and sub-seconds, and an EXIF size
/// that differs from IFD0's.
private func cmt2(bigEndian: Bool = false) -> [UInt8] {
  BoxBuilder.standaloneTIFF(
    [
      (EXIFTag.dateTimeOriginal, .ascii("2025:09:06 20:24:40")),
      (EXIFTag.offsetTimeOriginal, .ascii("-08:00")),
      (EXIFTag.subSecTimeOriginal, .ascii("72")),
      (EXIFTag.pixelXDimension, .long([1200])), (EXIFTag.pixelYDimension, .long([800])),
    ], bigEndian: bigEndian)
}

/// `CMT4`: the GPS IFD, 37.5 N 122.25 W, 0.9 m below sea level.
private func cmt4(bigEndian: Bool = false) -> [UInt8] {
  BoxBuilder.standaloneTIFF(
    [
      (EXIFTag.gpsLatitudeRef, .ascii("N")),
      (EXIFTag.gpsLatitude, .rational([(37, 1), (30, 1), (0, 1)])),
      (EXIFTag.gpsLongitudeRef, .ascii("W")),
      (EXIFTag.gpsLongitude, .rational([(122, 1), (15, 1), (0, 1)])),
      (EXIFTag.gpsAltitudeRef, .byte([1])), (EXIFTag.gpsAltitude, .rational([(9, 10)])),
    ], bigEndian: bigEndian)
}

private let goodCR3 = BoxBuilder.cr3(cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4())

@Suite struct CR3MetadataReaderTests {
  /// Two real JPEGs of the sample library, as a preview and a thumbnail.
  static let previewJPEG = (try? Sample.fixtures.bytes("Library/IMG_0002.jpg")) ?? []
  static let thumbnailJPEG = (try? Sample.fixtures.bytes("Library/IMG_0001.JPG")) ?? []

  @Test func thePreviewIsThePRVWJPEGElseTheTHMBJPEG() throws {
    let preview = Self.previewJPEG
    let thumbnail = Self.thumbnailJPEG
    #expect(!preview.isEmpty && !thumbnail.isEmpty && preview != thumbnail)
    let both = BoxBuilder.cr3(
      cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4(), thumbnail: thumbnail, preview: preview)
    #expect(CR3MetadataReader.thumbnail(from: ArrayByteSource(both)) == preview)
    // The metadata reads as without them.
    #expect(read(both).problems.isEmpty, "\(messages(read(both)))")
    #expect(read(both).pixelWidth == 6000)
    let thumbnailOnly = BoxBuilder.cr3(
      cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4(), thumbnail: thumbnail)
    #expect(CR3MetadataReader.thumbnail(from: ArrayByteSource(thumbnailOnly)) == thumbnail)
    // No JPEG in either box: none.
    #expect(CR3MetadataReader.thumbnail(from: ArrayByteSource(goodCR3)) == nil)
    let noJPEG = BoxBuilder.cr3(
      cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4(), preview: [UInt8](repeating: 0x11, count: 300))
    #expect(CR3MetadataReader.thumbnail(from: ArrayByteSource(noJPEG)) == nil)
    // The listing says which have one.
    #expect(read(both).hasThumbnail && read(thumbnailOnly).hasThumbnail)
    #expect(!read(goodCR3).hasThumbnail && !read(noJPEG).hasThumbnail)
  }

  /// A file cut inside its preview box gives the thumbnail, and every shorter cut gives
  /// the thumbnail, nothing, or (cut after the preview) the preview: never part of a JPEG.
  @Test func aCutFileNeverGivesPartOfAJPEG() {
    let preview = Self.previewJPEG
    let thumbnail = Self.thumbnailJPEG
    let file = BoxBuilder.cr3(
      cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4(), thumbnail: thumbnail, preview: preview)
    var length = 0
    while length <= file.count {
      let cut = Array(file.prefix(length))
      let found = CR3MetadataReader.thumbnail(from: ArrayByteSource(cut))
      #expect(
        found == nil || found == thumbnail || found == preview,
        "a cut at \(length) of \(file.count) bytes gave \(found?.count ?? 0) bytes")
      #expect(read(cut).hasThumbnail == (found != nil), "a cut at \(length)")
      length += 97
    }
  }

  @Test(arguments: [false, true])
  func readsSizeOrientationDatesAndPositionFromTheCanonBlocks(bigEndian: Bool) throws {
    let metadata = read(
      BoxBuilder.cr3(
        cmt1: cmt1(bigEndian: bigEndian), cmt2: cmt2(bigEndian: bigEndian),
        cmt3: [0x49, 0x49, 0x2A, 0], cmt4: cmt4(bigEndian: bigEndian)))
    #expect(metadata.problems.isEmpty, "\(messages(metadata))")
    // IFD0's ImageWidth × ImageLength, not the EXIF PixelXDimension × PixelYDimension.
    #expect(metadata.pixelWidth == 6000)
    #expect(metadata.pixelHeight == 4000)
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 4000)
    #expect(metadata.dateTime == "2025:09:06 20:24:47")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2025-09-06T20:24:40.72-08:00")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 37.5) < 1e-9)
    #expect(abs(location.longitude - -122.25) < 1e-9)
    #expect(location.altitude.map { abs($0 - -0.9) < 1e-9 } == true)
  }

  @Test func withoutCMT4ThereIsNoPositionAndNoProblem() {
    let metadata = read(BoxBuilder.cr3(cmt1: cmt1(), cmt2: cmt2(), cmt4: nil))
    #expect(metadata.problems.isEmpty, "\(messages(metadata))")
    #expect(metadata.location == nil)
    #expect(metadata.pixelWidth == 6000)
  }

  @Test func withoutCMT1TheEXIFSizeIsUsedAndTheMissingBoxIsAProblem() {
    let metadata = read(BoxBuilder.cr3(cmt1: nil, cmt2: cmt2(), cmt4: cmt4()))
    #expect(metadata.pixelWidth == 1200)
    #expect(metadata.pixelHeight == 800)
    #expect(metadata.dateTime == nil)
    #expect(metadata.dateTimeOriginal != nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(messages(metadata).contains("'CMT1'"))
  }

  @Test func withoutCMT2ThereIsNoCaptureDateAndAProblem() {
    let metadata = read(BoxBuilder.cr3(cmt1: cmt1(), cmt2: nil, cmt4: cmt4()))
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.dateTime == "2025:09:06 20:24:47")
    #expect(metadata.location != nil)
    #expect(messages(metadata).contains("'CMT2'"))
  }

  @Test func aUUIDBoxOfAnotherTypeIsNotCanons() {
    var other = BoxBuilder.canonUUID
    other[0] = 0x86
    let metadata = read(BoxBuilder.cr3(cmt1: cmt1(), cmt2: cmt2(), cmt4: cmt4(), uuidType: other))
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.dateTimeOriginal == nil)
    #expect(messages(metadata).contains("no Canon 'uuid' box"))
  }

  @Test func aFileWithoutMoovIsAProblem() {
    let metadata = read(BoxBuilder.ftyp("crx ") + BoxBuilder.box("mdat", [0, 0, 0, 0]))
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(messages(metadata).contains("no 'moov'"))
  }

  @Test func emptyAndFailingSourcesAreProblemsNotCrashes() {
    #expect(!read([]).problems.isEmpty)
    let failing = CR3MetadataReader.read(from: FailingSource(count: 4096))
    #expect(failing.problems.map(\.code) == [.unreadable])
  }

  @Test func aCMTBoxThatIsNotTIFFIsAProblem() {
    let metadata = read(
      BoxBuilder.cr3(cmt1: Array("not a tiff".utf8), cmt2: cmt2(), cmt4: cmt4()))
    #expect(metadata.pixelWidth == 1200)
    #expect(messages(metadata).contains("'CMT1' box"))
    #expect(messages(metadata).contains("TIFF header"))
  }

  @Test func anIFDOffsetPastTheBlockIsAProblemAndTheOtherBlocksAreStillRead() {
    var broken = cmt2()
    broken.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0, 0])
    let metadata = read(BoxBuilder.cr3(cmt1: cmt1(), cmt2: broken, cmt4: cmt4()))
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.pixelWidth == 6000)
    #expect(metadata.location != nil)
    #expect(messages(metadata).contains("'CMT2' box"))
  }

  @Test func aValueOffsetPastTheBlockLosesOnlyThatTag() {
    let block = BoxBuilder.standaloneTIFF([
      (EXIFTag.imageWidth, .long([6000])), (EXIFTag.imageLength, .long([4000])),
      (EXIFTag.dateTime, .raw(type: 2, count: 20, field: 0x7FFF_FFFF)),
    ])
    let metadata = read(BoxBuilder.cr3(cmt1: block, cmt2: cmt2(), cmt4: nil))
    #expect(metadata.pixelWidth == 6000)
    #expect(metadata.dateTime == nil)
    #expect(messages(metadata).contains("outside the block"))
  }

  @Test func aZeroSizeIsNoSizeAndTheEXIFSizeIsUsed() {
    let block = BoxBuilder.standaloneTIFF([
      (EXIFTag.imageWidth, .short([0])), (EXIFTag.imageLength, .short([4000])),
    ])
    let metadata = read(BoxBuilder.cr3(cmt1: block, cmt2: cmt2(), cmt4: nil))
    #expect(metadata.pixelWidth == 1200)
  }

  @Test func aCanonBoxDeclaringMoreThanTheFileIsReadAsTruncated() throws {
    var bytes = goodCR3
    // The `uuid` box starts after `ftyp` and the `moov` header; give it a 4 GB size.
    let uuidOffset = try #require(
      (0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(Array("uuid".utf8)) })
    bytes.replaceSubrange((uuidOffset - 4)..<uuidOffset, with: [0xFF, 0xFF, 0xFF, 0xF0])
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 6000)
    #expect(metadata.dateTimeOriginal != nil)
    #expect(metadata.problems.contains { $0.message.contains("truncated") })
  }

  @Test func everyPrefixOfTheFileReadsWithoutTrappingAndNeverInventsValues() throws {
    // The reader never looks past `moov`; a file cut inside `mdat` reads cleanly.
    let mediaData = try #require(
      (0..<(goodCR3.count - 4)).first { goodCR3[$0..<($0 + 4)].elementsEqual(Array("mdat".utf8)) })
    var sizes = 0
    for count in 0...goodCR3.count {
      let metadata = CR3MetadataReader.read(from: PrefixSource(base: goodCR3, count: count))
      if metadata.pixelWidth != nil {
        sizes += 1
        #expect(metadata.pixelWidth == 6000 || metadata.pixelWidth == 1200, "prefix \(count)")
      }
      if let date = metadata.dateTimeOriginal {
        // A cut block may lose the offset or the sub-seconds, never change the date.
        #expect(date.iso8601.hasPrefix("2025-09-06T20:24:40"), "prefix \(count)")
      }
      if count < mediaData - 4 {
        #expect(!metadata.problems.isEmpty, "prefix \(count) of \(goodCR3.count)")
      }
    }
    #expect(sizes > 0)
  }

  @Test func everySingleByteCorruptionOfTheCanonBoxReadsWithoutTrapping() {
    let start = 24
    var reported = 0
    for offset in start..<min(goodCR3.count, start + 600) {
      for value: UInt8 in [0x00, 0xFF, 0x80] {
        var bytes = goodCR3
        bytes[offset] = value
        if expectReaderInvariants(read(bytes), "byte \(offset) = \(value)") { reported += 1 }
      }
    }
    // Broken box sizes and TIFF headers are reported, not passed over in silence.
    #expect(reported > 0)
  }
}

@Suite struct TIFFFamilyRoutingTests {
  @Test func aRAWThatIsISOBaseMediaGoesToTheCR3Reader() {
    let metadata = MetadataReaderTable.read(from: ArrayByteSource(goodCR3), format: .raw)
    #expect(metadata.pixelWidth == 6000)
    #expect(metadata.problems.isEmpty)
  }

  @Test(arguments: [MediaFormat.tiff, .raw])
  func bigTIFFGoesToTheBigTIFFReaderWhateverItsName(format: MediaFormat) {
    var builder = BigTIFFTestBuilder()
    builder.ifd0 = [
      builder.short(EXIFTag.imageWidth, [8]), builder.short(EXIFTag.imageLength, [4]),
    ]
    let metadata = MetadataReaderTable.read(
      from: ArrayByteSource(builder.file()), format: format)
    #expect(metadata.pixelWidth == 8)
    #expect(metadata.pixelHeight == 4)
    #expect(metadata.problems.isEmpty)
  }

  @Test func classicTIFFStillGoesToExiv2() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(EXIFTag.dateTime, .ascii("2024:01:02 03:04:05"))]
    let metadata = MetadataReaderTable.read(
      from: ArrayByteSource(builder.tiff()), format: .tiff)
    // Neither of our readers: no 'moov', no BigTIFF complaint, whatever exiv2 makes of it.
    #expect(!metadata.problems.contains { $0.message.contains("moov") })
    #expect(!metadata.problems.contains { $0.message.contains("BigTIFF") })
  }

  /// The reader named in each row, as an identity to compare.
  private func reader(_ format: MediaFormat, header: [UInt8] = []) -> ObjectIdentifier {
    ObjectIdentifier(
      MetadataReaderTable.row(for: format, source: ArrayByteSource.self) { header }.reader)
  }

  private func thumbnailReader(_ format: MediaFormat, header: [UInt8] = []) -> ObjectIdentifier? {
    MetadataReaderTable.row(for: format, source: ArrayByteSource.self) { header }
      .thumbnailReader.map(ObjectIdentifier.init)
  }

  @Test func theTableNamesOneReaderPerFormatAndTheThumbnailExceptions() {
    let bigTIFF: [UInt8] = [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]
    let cr3 = Array(goodCR3.prefix(8))
    #expect(reader(.jpeg) == ObjectIdentifier(JPEGMetadataReader.self))
    #expect(reader(.heic) == ObjectIdentifier(HEIFMetadataReader.self))
    #expect(reader(.avif) == ObjectIdentifier(AVIFReader.self))
    #expect(thumbnailReader(.avif) == ObjectIdentifier(HEIFMetadataReader.self))
    #expect(reader(.png) == ObjectIdentifier(PNGMetadataReader.self))
    #expect(reader(.tiff, header: bigTIFF) == ObjectIdentifier(BigTIFFReader.self))
    #expect(reader(.raw, header: cr3) == ObjectIdentifier(CR3MetadataReader.self))
    #expect(reader(.tiff, header: cr3) == ObjectIdentifier(Exiv2MetadataReader.self))
    #expect(reader(.mp4) == ObjectIdentifier(QuickTimeMetadataReader.self))
    // The exception: a BigTIFF's thumbnail is asked of gexiv2; a CR3's of its own reader.
    #expect(thumbnailReader(.tiff, header: bigTIFF) == ObjectIdentifier(Exiv2MetadataReader.self))
    #expect(thumbnailReader(.raw, header: cr3) == ObjectIdentifier(CR3MetadataReader.self))
    #expect(thumbnailReader(.jpeg) == ObjectIdentifier(JPEGMetadataReader.self))
    #expect(thumbnailReader(.quickTime) == ObjectIdentifier(QuickTimeMetadataReader.self))
  }
}
