import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// The PNG stills made by `Resources/make-png.sh`.
private let pngs = Sample.resources.folder("PNG")

private func read(_ bytes: [UInt8]) -> MediaMetadata {
  PNGMetadataReader.read(from: ArrayByteSource(bytes))
}

private func messages(_ metadata: MediaMetadata) -> String {
  metadata.problems.map(\.message).joined(separator: "\n")
}

/// A TIFF block with dates, an offset, a position, an orientation and an EXIF size that a
/// PNG reader must not use.
private func sampleTIFF(date: String = "2024:01:02 03:04:00") -> [UInt8] {
  var builder = EXIFTestBuilder()
  builder.bigEndian = true
  builder.ifd0 = [
    (EXIFTag.orientation, .short([8])), (EXIFTag.dateTime, .ascii("2024:01:02 03:04:05")),
  ]
  builder.exif = [
    (EXIFTag.dateTimeOriginal, .ascii(date)),
    (EXIFTag.offsetTimeOriginal, .ascii("+05:30")),
    (EXIFTag.pixelXDimension, .long([4032])), (EXIFTag.pixelYDimension, .long([3024])),
  ]
  builder.gps = [
    (EXIFTag.gpsLatitudeRef, .ascii("S")),
    (EXIFTag.gpsLatitude, .rational([(12, 1), (30, 1), (0, 1)])),
    (EXIFTag.gpsLongitudeRef, .ascii("E")),
    (EXIFTag.gpsLongitude, .rational([(130, 1), (15, 1), (0, 1)])),
  ]
  return builder.tiff()
}

private let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

/// Checks everything ``sampleTIFF(date:)`` holds, with the IHDR size 64 × 48.
private func expectSample(_ metadata: MediaMetadata, date: String = "2024:01:02 03:04:00") {
  #expect(metadata.dateTime == "2024:01:02 03:04:05")
  let original = metadata.dateTimeOriginal
  #expect(original.map { "\($0.year):\($0.month):\($0.day) \($0.hour):\($0.minute)" } != nil)
  #expect(original?.zone == .offset(seconds: 5 * 3600 + 1800))
  if let original {
    let text = String(
      format: "%04d:%02d:%02d %02d:%02d:%02d", original.year, original.month, original.day,
      original.hour, original.minute, original.second)
    #expect(text == date)
  }
  #expect(abs((metadata.location?.latitude ?? 0) + 12.5) < 1e-9)
  #expect(abs((metadata.location?.longitude ?? 0) - 130.25) < 1e-9)
  #expect(metadata.pixelWidth == 64)
  #expect(metadata.pixelHeight == 48)
  #expect(metadata.orientation == 8)
}

// MARK: - eXIf

@Test func exifChunkBeforeImageData() {
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.exif(sampleTIFF())]))
  expectSample(metadata)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func exifChunkAfterImageData() {
  let metadata = read(PNGBuilder.png(after: [PNGBuilder.exif(sampleTIFF())]))
  expectSample(metadata)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func exifChunkWithAnExifIdentifierIsTolerated() {
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.exif(exifHeader + sampleTIFF())]))
  expectSample(metadata)
}

@Test func exifChunkThatIsNotTIFFIsAProblem() {
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.exif(Array("hello world".utf8))]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(metadata.pixelWidth == 64)
  #expect(messages(metadata).contains("does not start with a TIFF header"))
}

@Test func exifChunkIsPreferredOverARawProfile() throws {
  let profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF(date: "1999:09:09 09:09:09"))
  let metadata = read(
    PNGBuilder.png(
      before: [PNGBuilder.text("Raw profile type exif", profile), PNGBuilder.exif(sampleTIFF())]))
  expectSample(metadata)
}

@Test func badCRCIsReportedAndTheChunkStillRead() {
  var exif = PNGBuilder.exif(sampleTIFF())
  exif[exif.count - 1] ^= 0xFF
  let metadata = read(PNGBuilder.png(before: [exif]))
  expectSample(metadata)
  #expect(messages(metadata).contains("fails its CRC"))
}

// MARK: - Raw profiles

@Test func textRawProfileWithExifHeader() {
  let profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF())
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  expectSample(metadata)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func textRawProfileOfBareTIFF() {
  let profile = PNGBuilder.rawProfile("exif", sampleTIFF())
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  expectSample(metadata)
}

@Test func textRawProfileOfAPP1() {
  let profile = PNGBuilder.rawProfile("APP1", exifHeader + sampleTIFF())
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type APP1", profile)]))
  expectSample(metadata)
}

@Test func app1RawProfileOfXMPIsIgnoredQuietly() {
  let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)
  let profile = PNGBuilder.rawProfile("APP1", xmp)
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type APP1", profile)]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func compressedTextRawProfile() throws {
  let profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF())
  let chunk = try PNGBuilder.compressedText("Raw profile type exif", profile)
  let metadata = read(PNGBuilder.png(before: [chunk]))
  expectSample(metadata)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test(arguments: [false, true])
func internationalTextRawProfile(compressed: Bool) throws {
  let profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF())
  let chunk = try PNGBuilder.internationalText(
    "Raw profile type exif", profile, compressed: compressed)
  let metadata = read(PNGBuilder.png(before: [chunk]))
  expectSample(metadata)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func otherTextChunksAreNotLoaded() {
  let sparse = SparseSource(
    count: 64 << 20,
    runs: [
      (0, PNGBuilder.signature + PNGBuilder.header(width: 4, height: 4)),
      (33, PNGBuilder.rawChunk(length: 60 << 20, "tEXt", Array("Comment\0".utf8))),
    ])
  let metadata = PNGMetadataReader.read(from: sparse)
  #expect(metadata.pixelWidth == 4)
  #expect(sparse.bytesRead < 4096)
}

@Test func rawProfileWithBadHexIsAProblem() {
  var profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF())
  profile[profile.count - 10] = UInt8(ascii: "g")
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(metadata.pixelWidth == 64)
  #expect(messages(metadata).contains("not a valid raw profile"))
}

@Test func rawProfileShorterThanDeclaredIsAProblem() {
  let block = exifHeader + sampleTIFF()
  let profile = PNGBuilder.rawProfile("exif", block, declaredLength: block.count + 1)
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(messages(metadata).contains("tooShort"))
}

@Test func rawProfileLongerThanDeclaredIsReadWithAProblem() {
  // As libavif's paris_icc_exif_xmp.png: bytes after the declared length are ignored.
  let block = exifHeader + sampleTIFF()
  let profile = PNGBuilder.rawProfile("exif", block + [0xDE, 0xAD], declaredLength: block.count)
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  expectSample(metadata)
  #expect(messages(metadata).contains("4 bytes after its declared"))
}

@Test func rawProfileWithAHugeDeclaredLengthIsAProblem() {
  let profile = Array("\nexif\n 9999999999\n4d4d002a\n".utf8)
  let metadata = read(PNGBuilder.png(before: [PNGBuilder.text("Raw profile type exif", profile)]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(messages(metadata).contains("tooLarge"))
}

@Test(arguments: [
  "exif\n 4\n4d4d002a\n", "\n\n 4\n4d4d002a\n", "\nexif\n\n4d4d002a\n", "\nexif\n 4 4d4d002a\n",
  "\nex if\n 4\n4d4d002a\n", "\nexif\n 99999999999\n4d4d002a\n",
])
func rawProfileHeadersThatAreWrong(text: String) {
  #expect(throws: RawProfile.Failure.self) {
    try RawProfile(decoding: Array(text.utf8), limit: 1 << 20)
  }
}

@Test func rawProfileAcceptsZeroPaddingUppercaseAndCarriageReturns() throws {
  let profile = try RawProfile(
    decoding: Array("\nExif\n00000004\r\n4D4D\r\n002A\r\n".utf8), limit: 16)
  #expect(profile.name == "Exif")
  #expect(profile.bytes == [0x4D, 0x4D, 0x00, 0x2A])
  #expect(profile.trailingBytes == 0)
}

// MARK: - zlib

@Test func zlibBombIsStoppedAtTheCap() throws {
  let bomb = try PNGBuilder.zlib([UInt8](repeating: 0, count: 64 << 20))
  #expect(bomb.count < 128 << 10)
  let chunk = PNGBuilder.chunk("zTXt", Array("Raw profile type exif".utf8) + [0, 0] + bomb)
  let clock = ContinuousClock()
  var metadata = MediaMetadata()
  let elapsed = clock.measure { metadata = read(PNGBuilder.png(before: [chunk])) }
  #expect(messages(metadata).contains("inflates to more than"))
  #expect(metadata.pixelWidth == 64)
  #expect(elapsed < .seconds(2))
}

@Test func zlibJustUnderTheCapInflates() throws {
  let bytes = [UInt8](repeating: 7, count: 1000)
  #expect(try ZlibInflater.inflate(try PNGBuilder.zlib(bytes), limit: 1000) == bytes)
  #expect(throws: ZlibInflater.Failure.tooLarge(limit: 999)) {
    try ZlibInflater.inflate(try PNGBuilder.zlib(bytes), limit: 999)
  }
}

@Test func zlibTruncatedAndCorruptStreams() throws {
  let stream = try PNGBuilder.zlib(Array("some text to compress, some text".utf8))
  for length in 0..<stream.count {
    #expect(throws: ZlibInflater.Failure.self) {
      try ZlibInflater.inflate(Array(stream.prefix(length)), limit: 1 << 20)
    }
  }
  #expect(throws: ZlibInflater.Failure.self) {
    try ZlibInflater.inflate([0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF], limit: 1 << 20)
  }
}

@Test func corruptCompressedTextIsAProblem() {
  let chunk = PNGBuilder.chunk(
    "zTXt", Array("Raw profile type exif".utf8) + [0, 0, 0x78, 0x9C, 0xFF, 0xFF])
  let metadata = read(PNGBuilder.png(before: [chunk]))
  #expect(metadata.dateTimeOriginal == nil)
  #expect(metadata.pixelWidth == 64)
  #expect(!metadata.problems.isEmpty)
}

// MARK: - Structure and bounds

@Test func sizeComesFromIHDRNotEXIF() {
  let metadata = read(PNGBuilder.png(width: 3, height: 2, before: [PNGBuilder.exif(sampleTIFF())]))
  #expect(metadata.pixelWidth == 3)
  #expect(metadata.pixelHeight == 2)
}

@Test func notAPNGOrEmpty() {
  #expect(read([]).problems.first?.code == .emptyFile)
  #expect(read(Array("GIF89a....".utf8)).problems.first?.code == .unrecognizedFormat)
}

@Test func zeroSizeInIHDRIsAProblem() {
  let metadata = read(PNGBuilder.png(width: 0, height: 5))
  #expect(metadata.pixelWidth == nil)
  #expect(metadata.problems.first?.code == .invalidValue)
}

@Test func chunkLengthPastEndOfFile() {
  let file =
    PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)
    + PNGBuilder.rawChunk(length: 5000, "eXIf", Array(sampleTIFF().prefix(40)))
  let metadata = read(file)
  #expect(metadata.pixelWidth == 5)
  #expect(metadata.dateTimeOriginal == nil)
  #expect(messages(metadata).contains("past the end of the file"))
}

@Test(arguments: [UInt32.max, 0x8000_0000, 0x7FFF_FFFF])
func hugeDeclaredLengths(length: UInt32) {
  let file =
    PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)
    + PNGBuilder.rawChunk(length: length, "eXIf", sampleTIFF()) + PNGBuilder.end
  let metadata = read(file)
  #expect(metadata.pixelWidth == 5)
  #expect(metadata.dateTimeOriginal == nil)
  #expect(!metadata.problems.isEmpty)
}

@Test func oversizedEXIFChunkIsNotLoaded() {
  let length = 100 << 20
  let sparse = SparseSource(
    count: 200 << 20,
    runs: [
      (0, PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)),
      (33, PNGBuilder.rawChunk(length: UInt32(length), "eXIf")),
    ])
  let metadata = PNGMetadataReader.read(from: sparse)
  #expect(metadata.pixelWidth == 5)
  #expect(messages(metadata).contains("only chunks up to"))
  #expect(sparse.bytesRead < 4096)
}

@Test func imageDataIsSkippedNotRead() {
  // EXIF before a 100 MB IDAT: the walk stops at IDAT without reading it.
  let head =
    PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6) + PNGBuilder.exif(sampleTIFF())
  let sparse = SparseSource(
    count: 200 << 20,
    runs: [(0, head), (head.count, PNGBuilder.rawChunk(length: 100 << 20, "IDAT"))])
  let metadata = PNGMetadataReader.read(from: sparse)
  #expect(metadata.dateTimeOriginal != nil)
  #expect(sparse.bytesRead < 8192)

  // No EXIF before it: IDAT is skipped by offset and an eXIf after it found.
  let idatLength = 100 << 20
  let after = head.count - PNGBuilder.exif(sampleTIFF()).count + 12 + idatLength
  let later = SparseSource(
    count: after + 4096,
    runs: [
      (0, PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)),
      (33, PNGBuilder.rawChunk(length: UInt32(idatLength), "IDAT")),
      (after, PNGBuilder.exif(sampleTIFF()) + PNGBuilder.end),
    ])
  let found = PNGMetadataReader.read(from: later)
  #expect(found.dateTimeOriginal != nil, "\(messages(found))")
  #expect(later.bytesRead < 8192)
}

@Test func tooManyChunksEndTheWalk() {
  let empty = PNGBuilder.chunk("tEXt", [])
  let count = PNGMetadataReader.maximumChunks + 10
  var file = PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)
  file.reserveCapacity(file.count + empty.count * count)
  for _ in 0..<count { file += empty }
  let metadata = read(file + PNGBuilder.exif(sampleTIFF()) + PNGBuilder.end)
  #expect(metadata.pixelWidth == 5)
  #expect(metadata.dateTimeOriginal == nil)
  #expect(messages(metadata).contains("more than \(PNGMetadataReader.maximumChunks) chunks"))
}

@Test func badChunkTypeEndsTheWalk() {
  let file =
    PNGBuilder.signature + PNGBuilder.header(width: 5, height: 6)
    + BoxBuilder.be32(4) + [0x00, 0x01, 0x02, 0x03, 1, 2, 3, 4, 0, 0, 0, 0]
    + PNGBuilder.exif(sampleTIFF()) + PNGBuilder.end
  let metadata = read(file)
  #expect(metadata.pixelWidth == 5)
  #expect(metadata.dateTimeOriginal == nil)
  #expect(messages(metadata).contains("not four letters"))
}

@Test func readFailureIsAProblem() {
  let metadata = PNGMetadataReader.read(from: FailingSource(count: 100))
  #expect(metadata.problems.first?.code == .unreadable)
}

@Test func truncationAtEveryPrefix() throws {
  let profile = PNGBuilder.rawProfile("exif", exifHeader + sampleTIFF())
  let files = [
    PNGBuilder.png(before: [PNGBuilder.exif(sampleTIFF())]),
    PNGBuilder.png(before: [try PNGBuilder.compressedText("Raw profile type exif", profile)]),
    PNGBuilder.png(after: [
      try PNGBuilder.internationalText("Raw profile type exif", profile, compressed: true)
    ]),
  ]
  for file in files {
    let full = read(file)
    expectSample(full)
    for length in 0..<file.count {
      let metadata = PNGMetadataReader.read(from: PrefixSource(base: file, count: length))
      if length >= 33 {
        #expect(metadata.pixelWidth == 64)
      }
      if length < file.count - 12, metadata.dateTimeOriginal == nil {
        #expect(!metadata.problems.isEmpty)
      }
    }
  }
}

// MARK: - Real files

@Test func exiftoolWrittenPNG() throws {
  let metadata = read(try pngs.bytes("exiftool-exif.png"))
  #expect(metadata.pixelWidth == 40)
  #expect(metadata.pixelHeight == 30)
  #expect(metadata.dateTime == "2022:03:04 05:06:07")
  #expect(metadata.dateTimeOriginal?.zone == .offset(seconds: 3600))
  #expect(metadata.dateTimeOriginal?.minute == 6)
  #expect(abs((metadata.location?.latitude ?? 0) - 48.8584) < 1e-4)
  #expect(abs((metadata.location?.longitude ?? 0) - 2.2945) < 1e-4)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func imageMagickPNGWithEXIFAfterImageData() throws {
  let metadata = read(try pngs.bytes("imagemagick-exif-after-idat.png"))
  #expect(metadata.pixelWidth == 20)
  #expect(metadata.pixelHeight == 10)
  #expect(metadata.orientation == 6)
  #expect(metadata.displayedWidth == 10)
  #expect(metadata.dateTimeOriginal?.year == 2019)
  #expect(abs((metadata.location?.latitude ?? 0) - 35.6586) < 1e-4)
  #expect(abs((metadata.location?.longitude ?? 0) - 139.7454) < 1e-4)
  #expect(metadata.problems.isEmpty, "\(messages(metadata))")
}

@Test func assetReaderSendsPNGToTheChunkReader() throws {
  let folder = try TemporaryFolder()
  let bytes = PNGBuilder.png(
    before: [PNGBuilder.text("Raw profile type exif", PNGBuilder.rawProfile("exif", sampleTIFF()))])
  try Data(bytes).write(to: URL(fileURLWithPath: folder.absolute("legacy.png")))
  let root = try LibraryRoot(path: folder.path)
  let path = LibraryPath("legacy.png")
  let metadata = AssetReader.readMetadata(of: path, format: .png, root: root)
  expectSample(metadata)
}
