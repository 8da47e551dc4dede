import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

private func read(_ path: String, as format: MediaFormat) throws -> MediaMetadata {
  MetadataReaderTable.read(from: ArrayByteSource(try Sample.phones.bytes(path)), format: format)
}

private func codes(_ metadata: MediaMetadata) -> [AssetProblem.Code] {
  metadata.problems.map(\.code)
}

/// A source that records every read, to count what a reader asks of the file.
private final class RecordingSource: ByteSource {
  let base: ArrayByteSource
  private(set) var reads: [(offset: Int, length: Int)] = []

  init(_ bytes: [UInt8]) { base = ArrayByteSource(bytes) }

  var count: Int { base.count }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    reads.append((offset, length))
    return try base.bytes(at: offset, length: length)
  }
}

@Suite struct CameraTextTests {
  @Test(arguments: [
    ("Canon", "Canon"),
    ("Kodak\0\0\0\0", "Kodak"),
    ("NIKON CORPORATION   \0", "NIKON CORPORATION"),
    ("DC290 Zoom\0garbage after the NUL", "DC290 Zoom"),
    ("  leading blanks stay", "  leading blanks stay"),
    ("Ærø Kamera", "Ærø Kamera"),
  ])
  func paddingIsRemovedAsExiftoolDoes(stored: String, shown: String) throws {
    #expect(try CameraText.parse(Array(stored.utf8)) == shown)
  }

  @Test(arguments: ["", "\0\0\0\0", "    \0", " \t\r\n"])
  func onlyPaddingIsAbsent(stored: String) throws {
    #expect(try CameraText.parse(Array(stored.utf8)) == nil)
  }

  @Test func controlCharactersInvalidUTF8AndLongTextAreRejected() throws {
    #expect(throws: CameraText.Rejection.controlCharacter) {
      try CameraText.parse(Array("Bad\u{1B}[31mModel".utf8))
    }
    #expect(throws: CameraText.Rejection.controlCharacter) {
      try CameraText.parse(Array("C1\u{85}here".utf8))
    }
    #expect(throws: CameraText.Rejection.invalidUTF8) {
      try CameraText.parse([0x43, 0x61, 0x6E, 0xFF, 0x6E])
    }
    let long = [UInt8](repeating: UInt8(ascii: "x"), count: CameraText.maximumLength + 1)
    #expect(throws: CameraText.Rejection.tooLong(CameraText.maximumLength + 1)) {
      try CameraText.parse(long)
    }
    #expect(try CameraText.parse(Array(long.dropLast())) == String(repeating: "x", count: 255))
  }
}

@Suite struct CameraFieldTests {
  @Test func aCameraJPEGHasItsMakeModelAndLens() throws {
    let metadata = try read("Camera/lens.jpg", as: .jpeg)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.make == "Canon")
    #expect(metadata.model == "Canon EOS R5")
    #expect(metadata.lensModel == "RF24-105mm F4 L IS USM")
  }

  @Test func aTIFFHasItsMakeModelAndLensThroughGexiv2() throws {
    let metadata = try read("Camera/lens.tif", as: .tiff)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.make == "NIKON")
    #expect(metadata.model == "NIKON Z 6")
    #expect(metadata.lensModel == "NIKKOR Z 24-70mm f/4 S")
  }

  @Test func nulAndBlankPaddingIsRemovedAsExiftoolShowsIt() throws {
    let metadata = try read("Camera/padded.jpg", as: .jpeg)
    #expect(metadata.make == "Kodak")
    #expect(metadata.model == "DC290 Zoom")
    #expect(metadata.lensModel == nil)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
  }

  @Test func aModelWithAnEscapeCharacterIsLeftOutWithAProblem() throws {
    let metadata = try read("Camera/control.jpg", as: .jpeg)
    #expect(metadata.make == "Acme")
    #expect(metadata.model == nil)
    #expect(
      metadata.problems == [
        AssetProblem(.invalidValue, "Model holds a control character; ignored.")
      ])
  }

  @Test func anIPhoneMovieHasItsKeyedMakeAndModel() throws {
    let metadata = try read("Camera/IMG_0001.MOV", as: .quickTime)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.make == "Apple")
    #expect(metadata.model == "iPhone 15 Pro")
    #expect(metadata.lensModel == nil)
  }

  @Test func aCameraMP4HasItsUserDataMakeAndModel() throws {
    let metadata = try read("Camera/GX010001.MP4", as: .mp4)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    #expect(metadata.make == "GoPro")
    #expect(metadata.model == "HERO12 Black")
  }

  @Test func aSamsungHEICHasItsMakeAndModelThroughTheSameInterpreter() throws {
    let metadata = try read("Samsung/20240101_120000.heic", as: .heic)
    #expect(metadata.make == "samsung")
    #expect(metadata.model == "SM-S918B")
  }

  @Test func makeAndModelInIFD0AndLensInTheEXIFIFDOnly() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(EXIFTag.make, .ascii("Apple")), (EXIFTag.lensModel, .ascii("IFD0 lens"))]
    builder.exif = [
      (EXIFTag.model, .ascii("EXIF-IFD model")),
      (EXIFTag.lensModel, .undefined(Array("iPhone 8 back camera 3.99mm f/1.8\0".utf8))),
    ]
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(builder.jpeg()))
    #expect(metadata.make == "Apple")
    #expect(metadata.model == nil)
    #expect(metadata.lensModel == "iPhone 8 back camera 3.99mm f/1.8")
  }

  @Test func aMakeThatIsNotTextIsAProblem() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(EXIFTag.make, .short([7]))]
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(builder.jpeg()))
    #expect(metadata.make == nil)
    #expect(metadata.problems == [AssetProblem(.invalidValue, "Make is not text; ignored.")])
  }
}

@Suite struct TruncationTests {
  @Test func aJPEGWithoutItsEOIIsTruncatedAndStillRead() throws {
    let metadata = try read("Truncated/no-eoi.jpg", as: .jpeg)
    #expect(codes(metadata) == [.truncated])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2020-05-05T05:05:05")
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
  }

  @Test func anMP4WhoseMediaDataRunsPastTheEndIsTruncatedAndStillRead() throws {
    let metadata = try read("Truncated/short-mdat.mp4", as: .mp4)
    #expect(codes(metadata) == [.truncated])
    #expect(metadata.problems.first?.message.contains("'mdat'") == true)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2020-05-05T05:05:05Z")
    #expect(metadata.duration == 1)
  }

  @Test func aPNGWithoutIENDIsTruncated() throws {
    let metadata = try read("Truncated/no-iend.png", as: .png)
    #expect(codes(metadata) == [.truncated])
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
  }

  @Test func aPNGWhoseWalkStopsAtItsEXIFIsCheckedAtItsEnd() throws {
    let metadata = try read("Truncated/no-iend-exif.png", as: .png)
    #expect(codes(metadata) == [.truncated])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2020-05-06T06:06:06")
    // The same file whole (IEND appended back) has no problem.
    let whole =
      try Sample.phones.bytes("Truncated/no-iend-exif.png") + [0, 0, 0, 0] + Array("IEND".utf8)
      + [0xAE, 0x42, 0x60, 0x82]
    #expect(PNGMetadataReader.read(from: ArrayByteSource(whole)).problems.isEmpty)
  }

  @Test func aMotionPhotoWhoseVideoIsLongerThanTheWindowIsWhole() throws {
    let metadata = try read("Trailers/PXL_20240303_100000000.MP.jpg", as: .jpeg)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let range = try #require(metadata.embeddedVideoRange)
    #expect(range.count == 100_000)
  }

  @Test(arguments: [
    "Motion/PXL_20240202_100000000.MP.jpg", "Motion/MVIMG_20240202_100005.jpg",
    "Motion/20240202_110010.jpg", "Camera/lens.jpg", "Dates/fraction.jpg",
  ])
  func wholeJPEGsWithAndWithoutTrailersAreNotTruncated(path: String) throws {
    let metadata = try read(path, as: .jpeg)
    #expect(!codes(metadata).contains(.truncated), "\(metadata.problems)")
  }

  @Test func aSamsungTrailerLongerThanTheWindowIsNotCalledTruncated() {
    // No motion-photo XMP: only the trailer's `SEFT` end tells that the EOI lies further back.
    let jpeg = EXIFTestBuilder.jpeg(app1: nil)
    let trailer = [UInt8](repeating: 0x5A, count: 100_000) + Array("SEFH".utf8) + [0, 0, 0, 0]
    let file = jpeg + trailer + [8, 0, 0, 0] + Array("SEFT".utf8)
    #expect(!codes(JPEGMetadataReader.read(from: ArrayByteSource(file))).contains(.truncated))
    // The same bytes without `SEFT` at the end: no EOI in the last 64 KiB.
    let cut = Array(file.dropLast(4))
    #expect(codes(JPEGMetadataReader.read(from: ArrayByteSource(cut))) == [.truncated])
  }

  @Test func zerosAfterTheEndAreNotACut() {
    // Padding (or space allocated and never written) tells nothing about where the image
    // ended: not judged. Zeros in place of the end of a small file are no padding: judged.
    let jpeg = EXIFTestBuilder.jpeg(app1: nil)
    let padded = jpeg + [UInt8](repeating: 0, count: 100_000)
    #expect(JPEGMetadataReader.read(from: ArrayByteSource(padded)).problems.isEmpty)
    let zeroedEnd = Array(jpeg.dropLast(2)) + [0, 0]
    #expect(codes(JPEGMetadataReader.read(from: ArrayByteSource(zeroedEnd))) == [.truncated])
  }

  @Test func theEndCheckIsOneSmallReadAfterTheImageDataAndTheBoundedSpanWhenCut() throws {
    // A JPEG with 300,000 bytes of scan data: the marker walk, then one read at the end.
    var file = EXIFTestBuilder.jpeg(app1: nil)
    file.insert(
      contentsOf: [UInt8](repeating: 0x5A, count: 300_000), at: file.count - 2)
    let source = RecordingSource(file)
    let metadata = JPEGMetadataReader.read(from: source)
    #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    let late = source.reads.filter { $0.offset > 1000 }
    #expect(late.count == 1)
    #expect(late.first.map { $0.offset + $0.length } == file.count)
    #expect(late.first.map(\.length) == FileTail.firstLookLength)
    // Cut 2 bytes short: that read finds no EOI, so the rest of the last
    // `endCheckLength` bytes is read too (up to one byte into the first read, where an
    // `FF D9` could straddle them), and none is there either.
    let cut = RecordingSource(Array(file.dropLast(2)))
    #expect(codes(JPEGMetadataReader.read(from: cut)) == [.truncated])
    let cutLate = cut.reads.filter { $0.offset > 1000 }
    #expect(cutLate.count == 2)
    #expect(cutLate.map(\.length).reduce(0, +) == JPEGStructure.endCheckLength + 1)
    #expect(cutLate.map(\.offset).min() == file.count - 2 - JPEGStructure.endCheckLength)
  }

  @Test func aJPEGWhoseEOIComesBeforeItsFirstScanIsNotWhole() {
    // FF D9 only inside the headers (before SOS) does not count as the image's end.
    var file = EXIFTestBuilder.jpeg(app1: [0x41, 0x42, 0xFF, 0xD9])
    file.removeLast(2)
    #expect(codes(JPEGMetadataReader.read(from: ArrayByteSource(file))) == [.truncated])
  }

  @Test func inTheSampleLibraryOnlyTheCutJPEGIsTruncated() async throws {
    let contents = try await AssetsLibrary(root: Sample.library).enumerate(filter: .all)
    let truncated = contents.assets.filter { $0.problems.contains { $0.code == .truncated } }
    // The first 200 bytes of a JPEG, cut inside its EXIF segment (Fixtures/README.md).
    #expect(truncated.map(\.path) == [LibraryPath(Sample.truncatedJPEG)])
  }
}
