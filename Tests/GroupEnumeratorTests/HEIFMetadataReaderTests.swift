import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

private func read(_ bytes: [UInt8]) -> MediaMetadata {
  HEIFMetadataReader.read(from: ArrayByteSource(bytes))
}

/// A TIFF block with a date, an offset, a position, and an EXIF size and orientation that
/// a HEIF reader must not use.
private func sampleTIFF(makerNote: [UInt8]? = nil) -> [UInt8] {
  var builder = EXIFTestBuilder()
  builder.bigEndian = true
  builder.ifd0 = [
    (EXIFTag.orientation, .short([6])), (EXIFTag.dateTime, .ascii("2024:01:02 03:04:05")),
  ]
  builder.exif = [
    (EXIFTag.dateTimeOriginal, .ascii("2024:01:02 03:04:00")),
    (EXIFTag.offsetTimeOriginal, .ascii("+05:30")),
    (EXIFTag.pixelXDimension, .long([4032])), (EXIFTag.pixelYDimension, .long([3024])),
  ]
  if let makerNote { builder.exif.append((EXIFTag.makerNote, .byte(makerNote))) }
  builder.gps = [
    (EXIFTag.gpsLatitudeRef, .ascii("S")),
    (EXIFTag.gpsLatitude, .rational([(12, 1), (30, 1), (0, 1)])),
    (EXIFTag.gpsLongitudeRef, .ascii("E")),
    (EXIFTag.gpsLongitude, .rational([(130, 1), (15, 1), (0, 1)])),
  ]
  return builder.tiff()
}

/// A HEIC whose primary item 1 is 320×240 and whose Exif item 2 (`cdsc` to 1) lies in the
/// `mdat` at one extent, described by an `iloc` of version 0.
private func simpleHEIC(
  tiff: [UInt8] = sampleTIFF(), properties: [[UInt8]] = [BoxBuilder.ispe(320, 240)],
  associations: [Int] = [1]
) -> [UInt8] {
  BoxBuilder.heicWithExif(tiff: tiff, properties: properties, associations: associations)
}

@Suite struct HEIFMetadataReaderTests {
  @Test func sizeComesFromISPEAndDatesAndPositionFromTheExifItem() throws {
    let metadata = read(simpleHEIC())
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.pixelWidth == 320)
    #expect(metadata.pixelHeight == 240)
    // Without `irot`/`imir`, EXIF Orientation 6 turns the picture (as ImageIO does).
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 240)
    #expect(metadata.dateTime == "2024:01:02 03:04:05")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2024-01-02T03:04:00+05:30")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - -12.5) < 1e-9)
    #expect(abs(location.longitude - 130.25) < 1e-9)
  }

  @Test func quarterTurnSwapsTheDisplayedSize() {
    let metadata = read(
      simpleHEIC(
        properties: [BoxBuilder.ispe(320, 240), BoxBuilder.irot(1)], associations: [1, 2]))
    #expect(metadata.orientation == 8)
    #expect(metadata.displayedWidth == 240)
    #expect(metadata.displayedHeight == 320)
  }

  @Test(arguments: [
    (rotation: UInt8(0), mirror: UInt8?.none, orientation: 1),
    (1, nil, 8), (2, nil, 3), (3, nil, 6),
    (0, 1, 2), (0, 0, 4), (1, 1, 7), (1, 0, 5), (2, 1, 4), (2, 0, 2), (3, 1, 5), (3, 0, 7),
  ])
  func rotationThenMirrorIsOneEXIFOrientation(rotation: UInt8, mirror: UInt8?, orientation: Int) {
    var properties = [BoxBuilder.ispe(8, 6), BoxBuilder.irot(rotation)]
    if let mirror { properties.append(BoxBuilder.imir(axis: mirror)) }
    let metadata = read(
      simpleHEIC(properties: properties, associations: Array(1...properties.count)))
    #expect(
      metadata.orientation == orientation, "irot \(rotation), imir \(String(describing: mirror))")
  }

  @Test func gridPrimaryItemUsesItsOwnCanvasNotATile() {
    let bytes = BoxBuilder.heif { _ in
      [
        BoxBuilder.pitm(10),
        BoxBuilder.iinf([
          BoxBuilder.infe(1, "hvc1"), BoxBuilder.infe(2, "hvc1"), BoxBuilder.infe(10, "grid"),
        ]),
        BoxBuilder.iprp(
          [BoxBuilder.ispe(512, 512), BoxBuilder.ispe(1000, 400)],
          associations: [(1, [1]), (2, [1]), (10, [2])]),
      ]
    }
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 1000)
    #expect(metadata.pixelHeight == 400)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
  }

  @Test func exifItemInIdatWithTwoExtentsAndVersionOneFieldSizes() throws {
    let payload = BoxBuilder.exifItem(sampleTIFF())
    let split = payload.count / 2
    // idat holds 3 junk bytes, the second half, then the first half.
    let idat = [0xEE, 0xEE, 0xEE] + payload[split...] + payload[..<split]
    let bytes = BoxBuilder.heif { _ in
      [
        BoxBuilder.pitm(1),
        BoxBuilder.iinf([BoxBuilder.infe(1, "av01"), BoxBuilder.infe(2, "Exif")]),
        BoxBuilder.iloc(
          version: 1, offsetSize: 8, lengthSize: 4, baseOffsetSize: 8, indexSize: 4,
          [
            .init(
              itemID: 2, constructionMethod: 1, baseOffset: 3,
              extents: [
                .init(index: 7, offset: UInt64(payload.count - split), length: UInt64(split)),
                .init(index: 8, offset: 0, length: UInt64(payload.count - split)),
              ])
          ]),
        BoxBuilder.box("idat", Array(idat)),
        BoxBuilder.iprp([BoxBuilder.ispe(64, 32)], associations: [(1, [1])]),
      ]
    }
    let metadata = read(bytes)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2024-01-02T03:04:00+05:30")
    #expect(metadata.pixelWidth == 64)
  }

  @Test func ilocVersionTwoWithThirtyTwoBitItemIDs() throws {
    let location = try ItemLocationBox(
      parsing: content(
        BoxBuilder.iloc(
          version: 2, offsetSize: 0, lengthSize: 8, baseOffsetSize: 4, indexSize: 8,
          [
            .init(
              itemID: 0x1_0002, constructionMethod: 1, baseOffset: 0xABCD,
              extents: [.init(index: 5, offset: 0, length: 1 << 33)])
          ])))
    let item = try #require(location.location(of: 0x1_0002))
    #expect(item.constructionMethod == .itemDataOffset)
    #expect(item.baseOffset == 0xABCD)
    #expect(item.extents == [.init(index: 5, offset: 0, length: 1 << 33)])
  }

  @Test func infeVersionThreeHasThirtyTwoBitIDs() throws {
    let entry = try ItemInfoEntry(parsing: content(BoxBuilder.infe(version: 3, 0x12_3456, "Exif")))
    #expect(entry.itemID == 0x12_3456)
    #expect(entry.itemType == .exifItem)
  }

  @Test func ipmaWithFifteenBitIndexes() throws {
    let properties = (0..<200).map { _ in BoxBuilder.box("free", []) } + [BoxBuilder.ispe(9, 7)]
    let iprp = try ItemPropertiesBox(
      parsing: content(BoxBuilder.iprp(properties, associations: [(1, [201])], wide: true)))
    #expect(iprp.properties(of: 1) == [.spatialExtents(try spatialExtents(9, 7))])
  }

  @Test func exifItemDescribingThePrimaryItemIsPreferred() {
    let other = BoxBuilder.exifItem([0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0])
    let wanted = BoxBuilder.exifItem(sampleTIFF())
    let bytes = BoxBuilder.heif(data: other + wanted) { offset in
      [
        BoxBuilder.pitm(1),
        BoxBuilder.iinf([
          BoxBuilder.infe(1, "hvc1"), BoxBuilder.infe(2, "Exif"), BoxBuilder.infe(3, "Exif"),
        ]),
        BoxBuilder.iloc(
          version: 0,
          [
            .init(itemID: 2, extents: [.init(offset: UInt64(offset), length: UInt64(other.count))]),
            .init(
              itemID: 3,
              extents: [.init(offset: UInt64(offset + other.count), length: UInt64(wanted.count))]),
          ]),
        BoxBuilder.iref([("cdsc", 2, [9]), ("cdsc", 3, [1])]),
        BoxBuilder.iprp([BoxBuilder.ispe(2, 2)], associations: [(1, [1])]),
      ]
    }
    #expect(read(bytes).dateTime == "2024:01:02 03:04:05")
  }

  @Test func appleContentIdentifierComesFromTheMakerNote() {
    let identifier = Array("9B539AB8-A668-4FA6-9207-EB653A5E7E3C".utf8) + [0]
    // "Apple iOS\0", version 1, "MM", one entry (tag 0x0011, ASCII) pointing at offset 32.
    var note = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + BoxBuilder.be16(1)
    note += BoxBuilder.be16(0x0011) + BoxBuilder.be16(2) + BoxBuilder.be32(UInt32(identifier.count))
    note += BoxBuilder.be32(32) + BoxBuilder.be32(0) + identifier
    let metadata = read(simpleHEIC(tiff: sampleTIFF(makerNote: note)))
    #expect(metadata.contentIdentifier == "9B539AB8-A668-4FA6-9207-EB653A5E7E3C")
  }
}

@Suite struct HEIFHostileInputTests {
  @Test func noMetaOrNoPrimaryItemIsLeftToAnotherReader() throws {
    let noMeta = BoxBuilder.ftyp("heic") + BoxBuilder.box("mdat", [1, 2, 3])
    #expect(HEIFMetadataReader.readIfStructured(from: ArrayByteSource(noMeta)) == nil)
    let noPrimary = BoxBuilder.heif { _ in [BoxBuilder.iinf([BoxBuilder.infe(1, "hvc1")])] }
    #expect(HEIFMetadataReader.readIfStructured(from: ArrayByteSource(noPrimary)) == nil)
    let problem = try #require(read(noPrimary).problems.last)
    #expect(problem.code == .malformed)
    #expect(problem.message.contains("names no primary item"))
  }

  @Test func extentPastTheEndOfTheFileIsAProblem() throws {
    let bytes = BoxBuilder.heif { offset in
      [
        BoxBuilder.pitm(1), BoxBuilder.iinf([BoxBuilder.infe(2, "Exif")]),
        BoxBuilder.iloc(
          version: 0, [.init(itemID: 2, extents: [.init(offset: UInt64(offset), length: 5000)])]),
        BoxBuilder.iprp([BoxBuilder.ispe(4, 3)], associations: [(1, [1])]),
      ]
    }
    let metadata = read(bytes)
    #expect(metadata.pixelWidth == 4)
    let problem = try #require(metadata.problems.first { $0.message.contains("Exif item 2") })
    #expect(problem.code == .malformed)
    #expect(problem.message.contains("runs past the end of its data"))
  }

  @Test func overflowingBaseAndExtentOffsetsAreAProblem() throws {
    let bytes = BoxBuilder.heif { _ in
      [
        BoxBuilder.pitm(1), BoxBuilder.iinf([BoxBuilder.infe(2, "Exif")]),
        BoxBuilder.iloc(
          version: 1, offsetSize: 8, lengthSize: 8, baseOffsetSize: 8,
          [.init(itemID: 2, baseOffset: .max, extents: [.init(offset: 2, length: 4)])]),
      ]
    }
    let problem = try #require(read(bytes).problems.first { $0.message.contains("Exif item") })
    #expect(problem.code == .malformed)
    #expect(problem.message.contains("lies past the end"))
  }

  @Test func exifHeaderOffsetPastThePayloadIsAProblem() throws {
    let payload = BoxBuilder.be32(0x7FFF_FFFF) + sampleTIFF()
    let bytes = BoxBuilder.heif(data: payload) { offset in
      [
        BoxBuilder.pitm(1), BoxBuilder.iinf([BoxBuilder.infe(2, "Exif")]),
        BoxBuilder.iloc(
          version: 0,
          [
            .init(
              itemID: 2, extents: [.init(offset: UInt64(offset), length: UInt64(payload.count))])
          ]),
      ]
    }
    let metadata = read(bytes)
    #expect(metadata.dateTime == nil)
    #expect(metadata.problems.contains { $0.message.contains("TIFF header offset 2147483647") })
  }

  @Test func ilocItemCountAboveTheLimitThrows() {
    #expect(throws: BoxParsingError.self) {
      try ItemLocationBox(parsing: content(BoxBuilder.iloc(version: 2, itemCount: 0xFFFF_FFFF, [])))
    }
    #expect(throws: BoxParsingError.self) {
      try ItemInfoBox(parsing: content(BoxBuilder.iinf(entryCount: 1 << 31, [])))
    }
  }

  @Test func zeroByteExtentsAreCounted() throws {
    // Every size 0: each extent takes no bytes, so only the extent limit stops the loop.
    let items = (1...5).map { id in
      BoxBuilder.ItemLocation(
        itemID: UInt32(id), extents: Array(repeating: .init(offset: 0, length: 0), count: 65_535))
    }
    let box = BoxBuilder.iloc(version: 0, offsetSize: 0, lengthSize: 0, items)
    #expect(box.count < 100)
    let error = #expect(throws: BoxParsingError.self) {
      try ItemLocationBox(parsing: content(box))
    }
    #expect(error?.description.contains("extents") == true)
  }

  @Test func invalidFieldSizeThrows() {
    #expect(throws: BoxParsingError.self) {
      try ItemLocationBox(parsing: content(BoxBuilder.iloc(version: 1, offsetSize: 3, [])))
    }
  }

  @Test func everyPrefixOfARealHEICIsReadWithoutTrapping() throws {
    let bytes = try Sample.resources.bytes("Exiv2/south-east.heic")
    let full = read(bytes)
    let fullDate = try #require(full.dateTimeOriginal).iso8601
    var reported = 0
    for length in 0...bytes.count {
      let metadata = HEIFMetadataReader.read(from: PrefixSource(base: bytes, count: length))
      if expectReaderInvariants(metadata, "prefix \(length)") { reported += 1 }
      // A cut file loses values, never changes them.
      if let width = metadata.pixelWidth { #expect(width == full.pixelWidth, "prefix \(length)") }
      if let date = metadata.dateTimeOriginal {
        #expect(fullDate.hasPrefix(String(date.iso8601.prefix(19))), "prefix \(length)")
      }
    }
    #expect(reported > 0)
  }

  @Test func failingReadsBecomeProblems() throws {
    let metadata = HEIFMetadataReader.read(from: FailingSource(count: 4096))
    let problem = try #require(metadata.problems.first)
    #expect(problem.code == .unreadable)
  }
}

/// The HEIC exiv2 0.27.6 misreads (see `Exiv2MetadataReaderTests`) and an AVIF.
@Suite struct HEIFRealFileTests {
  /// libheif stores this 64×48 picture as a grid of one 64×64 tile, and exiftool records
  /// the Exif item's position in `iloc`'s extent offset.
  @Test func libheifGridHEICWithExifAtAnExtentOffset() throws {
    let metadata = read(try Sample.resources.bytes("Exiv2/south-east.heic"))
    #expect(metadata.pixelWidth == 64)
    #expect(metadata.pixelHeight == 48)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2022-03-04T05:06:07+11:00")
    // exiftool 12.57 wrote -37.8 as 37° 47′ 60″: a rounding, accepted as 37.8.
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - -37.8) < 1e-9)
    #expect(abs(location.longitude - 144.95) < 1e-9)
  }

  /// exiftool wrote EXIF Orientation 6 into an AVIF without `irot`: without transformative
  /// properties the EXIF tag is applied, as Apple's ImageIO and photo servers do.
  @Test func avifWithExifOrientationAndNoIrotIsTurnedByTheEXIFTag() throws {
    let metadata = read(try Sample.resources.bytes("HEIF/north-west.avif"))
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.displayedWidth == 30)
    #expect(metadata.displayedHeight == 40)
    #expect(metadata.orientation == 6)
    #expect(metadata.dateTime == "2023:07:08 09:10:11")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2023-07-08T09:10:10-03:00")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 40.75) < 1e-9)
    #expect(abs(location.longitude - -73.985) < 1e-9)
  }
}

/// The content of a box built by ``BoxBuilder`` (header at offset 0).
private func content(_ box: [UInt8]) throws -> BoxContent {
  let header = try BoxHeader(parsing: box, at: 0, parentEnd: box.count)
  return BoxContent(header: header, bytes: Array(box[header.headerLength...]))
}

private func spatialExtents(_ width: UInt32, _ height: UInt32) throws -> ImageSpatialExtentsProperty
{
  try ImageSpatialExtentsProperty(parsing: content(BoxBuilder.ispe(width, height)))
}

@Suite struct HEIFAssetReaderTests {
  /// HEIC and AVIF go to the HEIF reader; a file without `meta` is reported, not guessed.
  @Test func heifStillsAreReadByTheHEIFReader() async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.write(
      try Sample.resources.bytes("Exiv2/south-east.heic"), as: "DCIM/100TEST/IMG_0001.HEIC")
    try library.write(
      try Sample.resources.bytes("HEIF/north-west.avif"), as: "DCIM/100TEST/IMG_0002.AVIF")
    let noMeta = BoxBuilder.ftyp("heic") + BoxBuilder.box("mdat", [1, 2, 3, 4])
    try library.write(noMeta, as: "DCIM/100TEST/IMG_0003.HEIC")
    let assets = try await AssetsLibrary(root: library.root).enumerate().assets
    let heic = try #require(assets.first { $0.path.escaped.hasSuffix("IMG_0001.HEIC") })
    #expect(heic.pixelWidth == 64)
    #expect(heic.pixelHeight == 48)
    #expect(heic.metadata.dateTimeOriginal?.iso8601 == "2022-03-04T05:06:07+11:00")
    let avif = try #require(assets.first { $0.path.escaped.hasSuffix("IMG_0002.AVIF") })
    #expect(avif.pixelWidth == 30)  // displayed: stored 40×30, EXIF Orientation 6
    #expect(avif.metadata.dateTime == "2023:07:08 09:10:11")
    let bare = try #require(assets.first { $0.path.escaped.hasSuffix("IMG_0003.HEIC") })
    #expect(bare.pixelWidth == nil)
    #expect(!bare.problems.isEmpty)
  }
}
