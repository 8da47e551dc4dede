import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct QuickTimeBoxTests {
  typealias B = BoxBuilder

  func content(_ box: [UInt8]) throws -> BoxContent {
    let header = try BoxHeader(parsing: box, at: 0, parentEnd: box.count)
    return BoxContent(header: header, bytes: Array(box[header.headerLength...]))
  }

  @Test(arguments: [UInt8(0), 1])
  func movieHeaderReadsBothVersions(version: UInt8) throws {
    let header = try MovieHeaderBox(
      parsing: content(
        B.mvhd(version: version, creation: B.june2021, timescale: 600, duration: 1200)))
    #expect(header.version == version)
    #expect(header.creationTime == B.june2021)
    #expect(header.timescale == 600)
    #expect(header.seconds == 2)
  }

  @Test func movieHeaderVersionTwoIsRefused() throws {
    var bytes = B.mvhd(version: 1, creation: 1)
    bytes[8] = 2
    #expect(throws: BoxParsingError.unsupportedVersion(type: .movieHeader, offset: 0, version: 2)) {
      try MovieHeaderBox(parsing: content(bytes))
    }
  }

  @Test(arguments: [(UInt8(0), 99), (0, 20), (1, 111), (1, 32), (0, 0)])
  func aShortMovieHeaderIsRefused(version: UInt8, length: Int) throws {
    let bytes = Array(B.mvhd(version: version, creation: 1).prefix(8 + length))
    let box = B.box("mvhd", Array(bytes[8...]))
    #expect(throws: BoxParsingError.self) { try MovieHeaderBox(parsing: content(box)) }
  }

  @Test func unknownAndZeroDurationsAndTimescalesGiveNoSeconds() throws {
    let unknown32 = try MovieHeaderBox(parsing: content(B.mvhd(creation: 1, duration: 0xFFFF_FFFF)))
    #expect(unknown32.isDurationUnknown && unknown32.seconds == nil)
    let unknown64 = try MovieHeaderBox(
      parsing: content(B.mvhd(version: 1, creation: 1, duration: .max)))
    #expect(unknown64.seconds == nil)
    let noScale = try MovieHeaderBox(parsing: content(B.mvhd(creation: 1, timescale: 0)))
    #expect(noScale.seconds == nil)
    let zero = try MovieHeaderBox(parsing: content(B.mvhd(creation: 1, duration: 0)))
    #expect(zero.seconds == nil)
  }

  @Test(arguments: [UInt8(0), 1])
  func trackHeaderReadsSizeAndMatrix(version: UInt8) throws {
    let header = try TrackHeaderBox(
      parsing: content(
        B.tkhd(
          version: version, matrix: B.quarterTurnMatrix, width: 1920 << 16, height: 0x0437_8000)))
    #expect(header.width == 1920)
    #expect(header.height == 1080)  // 1079.5 rounds up
    #expect(header.orientation == 6)
    #expect(header.rotation == 90)
  }

  @Test(arguments: [
    ([Int32(1), 0, 0, 1], 1), ([-1, 0, 0, 1], 2), ([-1, 0, 0, -1], 3), ([1, 0, 0, -1], 4),
    ([0, 1, 1, 0], 5), ([0, 1, -1, 0], 6), ([0, -1, -1, 0], 7), ([0, -1, 1, 0], 8),
  ])
  func matricesMapToEXIFOrientations(abcd: [Int32], orientation: Int) throws {
    let matrix = [abcd[0] << 16, abcd[1] << 16, 0, abcd[2] << 16, abcd[3] << 16, 0, 0, 0, 1 << 30]
    let header = try TrackHeaderBox(parsing: content(B.tkhd(matrix: matrix, width: 0, height: 0)))
    #expect(header.orientation == orientation)
    #expect(header.width == nil)
  }

  @Test func aShearedMatrixHasNoOrientation() throws {
    let matrix: [Int32] = [0x1_0000, 0x8000, 0, 0, 0x1_0000, 0, 0, 0, 1 << 30]
    let header = try TrackHeaderBox(parsing: content(B.tkhd(matrix: matrix, width: 1, height: 1)))
    #expect(header.orientation == nil)
  }

  @Test func aShortTrackHeaderIsRefused() throws {
    let box = B.box("tkhd", Array(B.tkhd(width: 1, height: 1)[8..<90]))
    #expect(
      throws: BoxParsingError.contentTooShort(
        type: .trackHeader, offset: 0, needed: 84, available: 82)
    ) {
      try TrackHeaderBox(parsing: content(box))
    }
  }

  @Test func handlerReadsItsType() throws {
    #expect(try HandlerBox(parsing: content(B.hdlr("vide"))).handlerType == .videoHandler)
    #expect(throws: BoxParsingError.self) {
      try HandlerBox(parsing: content(B.box("hdlr", [0, 0, 0, 0, 1])))
    }
  }

  @Test func keysAreReadInOrder() throws {
    let keys = try MetadataKeysBox(parsing: content(B.keys(["a.b", "c"])))
    #expect(keys.keys == ["a.b", "c"])
    #expect(keys.key(forIndex: 0) == nil)
    #expect(keys.key(forIndex: 2) == "c")
    #expect(keys.key(forIndex: 3) == nil)
    #expect(keys.key(forIndex: .max) == nil)
  }

  @Test func aHugeKeyCountWithFewBytesFailsWithoutAllocating() throws {
    let box = B.fullBox(
      "keys", version: 0, B.be32(.max) + B.be32(9) + B.code("mdta").bytes + [0x41])
    #expect(
      throws: BoxParsingError.contentTooShort(
        type: .metadataKeys, offset: 0, needed: 21, available: 17)
    ) {
      try MetadataKeysBox(parsing: content(box))
    }
  }

  @Test func aKeySizeBelowEightIsRefused() throws {
    let box = B.fullBox("keys", version: 0, B.be32(1) + B.be32(4) + B.code("mdta").bytes)
    #expect(throws: BoxParsingError.self) { try MetadataKeysBox(parsing: content(box)) }
  }

  @Test func dataBoxesDecodeUTF8AndUTF16() throws {
    let utf8 = try MetadataDataBox(
      parsing: content(B.box("data", B.be32(1) + B.be32(0) + Array("é".utf8))))
    #expect(utf8.text == "é")
    let utf16 = try MetadataDataBox(
      parsing: content(B.box("data", B.be32(2) + B.be32(0) + [0, 0x41, 0, 0xE9])))
    #expect(utf16.text == "Aé")
    let number = try MetadataDataBox(
      parsing: content(B.box("data", B.be32(23) + B.be32(0) + [1, 2, 3, 4])))
    #expect(number.text == nil)
    let invalid = try MetadataDataBox(
      parsing: content(B.box("data", B.be32(1) + B.be32(0) + [0xFF])))
    #expect(invalid.text == nil)
    #expect(throws: BoxParsingError.self) {
      try MetadataDataBox(parsing: content(B.box("data", [0, 0, 0, 1])))
    }
  }

  @Test func userDataLocationReadsItsString() throws {
    let item = try UserDataLocationBox(parsing: content(B.userDataLocation("+1.5-2.5/")))
    #expect(item.text == "+1.5-2.5/")
    let overlong = B.box(.userDataLocation, B.be16(200) + B.be16(0) + Array("+1+2/".utf8))
    #expect(throws: BoxParsingError.self) { try UserDataLocationBox(parsing: content(overlong)) }
  }
}
