import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Fixtures/`, made by `Fixtures/make-phones.sh` and `make-library.sh`.
private func source(_ path: String) throws -> ArrayByteSource {
  ArrayByteSource(try Sample.fixtures.bytes(path))
}

private func le16(_ value: UInt16) -> [UInt8] {
  withUnsafeBytes(of: value.littleEndian, Array.init)
}
private func le32(_ value: UInt32) -> [UInt8] {
  withUnsafeBytes(of: value.littleEndian, Array.init)
}

@Suite struct GIFAndBMPReaderTests {
  @Test func aGIFsSizeIsItsLogicalScreen() throws {
    let metadata = GIFMetadataReader.read(from: try source("Phones/Formats/anim.gif"), format: .gif)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 40 && metadata.pixelHeight == 30)
    #expect(metadata.displayedWidth == 40 && metadata.displayedHeight == 30)
  }

  @Test(arguments: [
    Array("GIF89a".utf8), Array("GIF90a".utf8) + [1, 0, 1, 0], Array("PNG89a".utf8) + [1, 0, 1, 0],
  ])
  func aGIFHeaderThatIsCutOrWrongIsMalformed(bytes: [UInt8]) {
    let metadata = GIFMetadataReader.read(from: ArrayByteSource(bytes), format: .gif)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  @Test func aGIFOfNoPixelsIsAnInvalidValue() {
    let metadata = GIFMetadataReader.read(
      from: ArrayByteSource(Array("GIF87a".utf8) + [0, 0, 5, 0]), format: .gif)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }

  @Test func aBMPsSizeComesFromItsInfoHeader() throws {
    let metadata = BMPMetadataReader.read(
      from: try source("Phones/Formats/bitmap.bmp"), format: .bmp)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 41 && metadata.pixelHeight == 31)
  }

  /// A file header, then a DIB header of `size` bytes starting with `fields`.
  private func bmp(dibSize: UInt32, _ fields: [UInt8]) -> [UInt8] {
    Array("BM".utf8) + le32(1000) + [0, 0, 0, 0] + le32(54) + le32(dibSize) + fields
  }

  @Test func aTopDownBMPIsAsTallAsItsHeightsMagnitude() {
    let bytes = bmp(dibSize: 40, le32(7) + le32(UInt32(bitPattern: -9)))
    let metadata = BMPMetadataReader.read(from: ArrayByteSource(bytes), format: .bmp)
    #expect(metadata.pixelWidth == 7 && metadata.pixelHeight == 9)
  }

  @Test func anOS2CoreHeaderHasSixteenBitSides() {
    let bytes = bmp(dibSize: 12, le16(300) + le16(200))
    let metadata = BMPMetadataReader.read(from: ArrayByteSource(bytes), format: .bmp)
    #expect(metadata.pixelWidth == 300 && metadata.pixelHeight == 200)
  }

  @Test(arguments: [
    (
      "negative width", UInt32(40), le32(UInt32(bitPattern: -7)) + le32(9),
      AssetProblem.Code.invalidValue
    ),
    ("the smallest Int32 height", 40, le32(7) + le32(0x8000_0000), .invalidValue),
    ("zero height", 40, le32(7) + le32(0), .invalidValue),
    ("unknown header size", 13, le32(7) + le32(9), .malformed),
    ("cut short", 40, le32(7), .malformed),
  ])
  func badBMPHeadersAreProblemsNotSizes(
    name: String, dibSize: UInt32, fields: [UInt8], code: AssetProblem.Code
  ) {
    let metadata = BMPMetadataReader.read(
      from: ArrayByteSource(bmp(dibSize: dibSize, fields)), format: .bmp)
    #expect(metadata.pixelWidth == nil, "\(name)")
    #expect(metadata.problems.map(\.code) == [code], "\(name)")
  }
}

@Suite struct AVIReaderTests {
  @Test func anAVIsSizeAndDurationComeFromItsHeaders() throws {
    let metadata = AVIMetadataReader.read(from: try source("Phones/Formats/old.avi"), format: .avi)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
    #expect(metadata.duration == 1.0)
  }

  @Test func theSampleLibrarysAVIIsReadToo() throws {
    let metadata = AVIMetadataReader.read(from: try source("Library/Videos/old.avi"), format: .avi)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 32 && metadata.pixelHeight == 24)
    #expect(metadata.duration == 0.4)
  }

  /// An AVI whose header list holds `chunks` (already framed).
  private func avi(_ chunks: [UInt8], listSize: UInt32? = nil) -> [UInt8] {
    let list = Array("hdrl".utf8) + chunks
    return Array("RIFF".utf8) + le32(UInt32(list.count + 12)) + Array("AVI ".utf8)
      + Array("LIST".utf8) + le32(listSize ?? UInt32(list.count)) + list
  }

  private func chunk(_ kind: String, _ body: [UInt8]) -> [UInt8] {
    Array(kind.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
  }

  private func mainHeader(microseconds: UInt32, frames: UInt32, width: UInt32, height: UInt32)
    -> [UInt8]
  {
    le32(microseconds) + le32(0) + le32(0) + le32(0) + le32(frames) + le32(0) + le32(1) + le32(0)
      + le32(width) + le32(height) + Array(repeating: 0, count: 16)
  }

  @Test func withoutAVideoStreamHeaderTheMainHeaderGivesTheDuration() {
    let bytes = avi(
      chunk("avih", mainHeader(microseconds: 40_000, frames: 50, width: 8, height: 6)))
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(bytes), format: .avi)
    #expect(metadata.duration == 2.0)
    #expect(metadata.pixelWidth == 8)
  }

  @Test func aHeaderListLongerThanTheFileIsMalformed() {
    let bytes = avi(
      chunk("avih", mainHeader(microseconds: 1, frames: 1, width: 8, height: 6)),
      listSize: 0xFFFF_FFF0)
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(bytes), format: .avi)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(metadata.problems.first?.message.contains("claims 4294967280 bytes") == true)
  }

  @Test func aFloodOfChunksStopsAtTheBudgetWithAProblem() {
    var chunks: [UInt8] = []
    for _ in 0..<(AVIMetadataReader.maximumChunks + 10) { chunks += chunk("JUNK", []) }
    chunks += chunk("avih", mainHeader(microseconds: 1, frames: 1, width: 8, height: 6))
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(avi(chunks)), format: .avi)
    #expect(metadata.problems.map(\.code) == [.malformed, .malformed])
    #expect(metadata.problems.first?.message.contains("more than 1024 chunks") == true)
  }

  @Test(arguments: [[UInt8](), Array("RIFF".utf8), Array("RIFF\0\0\0\0WAVE".utf8)])
  func somethingElseIsMalformed(bytes: [UInt8]) {
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(bytes), format: .avi)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  @Test func impossibleFramesAreAnInvalidValue() {
    let bytes = avi(chunk("avih", mainHeader(microseconds: 1, frames: 1, width: 0, height: 6)))
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(bytes), format: .avi)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }
}
