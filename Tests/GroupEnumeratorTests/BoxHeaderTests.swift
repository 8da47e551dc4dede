import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct BoxHeaderTests {
  typealias B = BoxBuilder

  @Test func aThirtyTwoBitSizeGivesTheContentRange() throws {
    let bytes = B.box("free", [1, 2, 3, 4])
    let header = try BoxHeader(parsing: bytes, at: 0, parentEnd: bytes.count)
    #expect(header.type == B.code("free"))
    #expect(header.headerLength == 8)
    #expect(header.contentRange == 8..<12)
    #expect(!header.isTruncated)
  }

  @Test func sizeZeroExtendsToTheParentsEnd() throws {
    let header = try BoxHeader(parsing: B.rawBox(size: 0, "mdat"), at: 100, parentEnd: 5000)
    #expect(header.declaredSize == nil)
    #expect(header.end == 5000)
    #expect(header.contentRange == 108..<5000)
  }

  @Test func sizeOneReadsTheLargesize() throws {
    let bytes = B.largeBox("mdat", largesize: 24, [UInt8](repeating: 7, count: 8))
    let header = try BoxHeader(parsing: bytes, at: 0, parentEnd: bytes.count)
    #expect(header.headerLength == 16)
    #expect(header.contentRange == 16..<24)
  }

  @Test(arguments: [UInt64(0), 1, 8, 15])
  func aLargesizeBelowSixteenIsRejected(largesize: UInt64) {
    #expect(
      throws: BoxParsingError.sizeTooSmall(
        type: B.code("mdat"), offset: 0, declared: largesize, minimum: 16)
    ) {
      try BoxHeader(parsing: B.largeBox("mdat", largesize: largesize), at: 0, parentEnd: 1000)
    }
  }

  @Test(arguments: [UInt64(1000), UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max])
  func aLargesizePastTheParentIsClampedAndReported(largesize: UInt64) throws {
    let header = try BoxHeader(
      parsing: B.largeBox("mdat", largesize: largesize), at: 40, parentEnd: 100)
    #expect(header.isTruncated)
    #expect(header.end == 100)
    #expect(
      header.truncation
        == .sizeOutOfBounds(type: B.code("mdat"), offset: 40, declared: largesize, available: 60))
  }

  @Test(arguments: UInt32(2)...7)
  func aSizeSmallerThanTheHeaderIsRejected(size: UInt32) {
    #expect(
      throws: BoxParsingError.sizeTooSmall(
        type: B.code("moov"), offset: 0, declared: UInt64(size), minimum: 8)
    ) {
      try BoxHeader(parsing: B.rawBox(size: size, "moov"), at: 0, parentEnd: 64)
    }
  }

  @Test func aSizePastTheParentIsClamped() throws {
    let header = try BoxHeader(parsing: B.rawBox(size: 500, "moov"), at: 8, parentEnd: 108)
    #expect(header.isTruncated)
    #expect(header.contentRange == 16..<108)
  }

  @Test func fewerThanEightBytesAreATruncatedHeader() {
    #expect(throws: BoxParsingError.truncatedHeader(offset: 3, available: 5)) {
      try BoxHeader(parsing: [0, 0, 0, 8, 0x6D], at: 3, parentEnd: 8)
    }
    #expect(throws: BoxParsingError.truncatedHeader(offset: 0, available: 12)) {
      try BoxHeader(
        parsing: Array(B.largeBox("mdat", largesize: 99).prefix(12)), at: 0, parentEnd: 12)
    }
  }

  @Test func codesPrintAsTextOrHex() {
    #expect(FourCharacterCode.movie.description == "moov")
    #expect(FourCharacterCode.userDataLocation.description == "©xyz")
    #expect(FourCharacterCode(rawValue: 1).description == "0x00000001")
  }

  @Test func errorDescriptionsNameTheBoxAndOffset() {
    let error = BoxParsingError.sizeOutOfBounds(
      type: .movie, offset: 1234, declared: 99_999, available: 10)
    #expect(
      error.description
        == "Box 'moov' at offset 1234 declares 99999 bytes but only 10 remain in its parent; "
        + "it was read as truncated.")
    #expect(error.assetProblem.code == .malformed)
  }
}

@Suite struct BoxIteratorTests {
  typealias B = BoxBuilder

  func types(in bytes: [UInt8]) throws -> [String] {
    var boxes = BoxIterator(topLevelOf: BoxReader(source: ArrayByteSource(bytes)))
    var types: [String] = []
    while let box = try boxes.next() { types.append(box.type.description) }
    return types
  }

  @Test func walksSiblingsInOrder() throws {
    #expect(
      try types(in: B.ftyp() + B.box("free", []) + B.box("moov", [1])) == ["ftyp", "free", "moov"])
  }

  @Test func aSizeZeroBoxEndsTheWalk() throws {
    #expect(
      try types(in: B.ftyp() + B.rawBox(size: 0, "mdat", [1, 2, 3, 4, 5, 6, 7, 8, 9])) == [
        "ftyp", "mdat",
      ])
  }

  @Test func aNestedSizeZeroBoxEndsAtItsParent() throws {
    let bytes =
      B.box("moov", B.box("mvhd", []) + B.rawBox(size: 0, "udta", [1, 2])) + B.box("free", [])
    let reader = BoxReader(source: ArrayByteSource(bytes))
    var top = BoxIterator(topLevelOf: reader)
    let movie = try #require(try top.next())
    var children = try BoxIterator(childrenOf: movie, depth: 0, reader: reader)
    #expect(try children.next()?.type == B.code("mvhd"))
    let userData = try #require(try children.next())
    #expect(userData.end == movie.end)
    #expect(try children.next() == nil)
    #expect(try top.next()?.type == B.code("free"))
  }

  @Test func aZeroTerminatorIsAcceptedInsideABox() throws {
    let bytes = B.box("udta", B.box("free", []) + [0, 0, 0, 0])
    let reader = BoxReader(source: ArrayByteSource(bytes))
    let userData = try BoxHeader(parsing: bytes, at: 0, parentEnd: bytes.count)
    var children = try BoxIterator(childrenOf: userData, depth: 0, reader: reader)
    #expect(try children.next()?.type == B.code("free"))
    #expect(try children.next() == nil)
  }

  @Test func aZeroTailAtTheTopLevelIsATruncatedHeader() {
    #expect(throws: BoxParsingError.truncatedHeader(offset: 8, available: 4)) {
      try types(in: B.box("free", []) + [0, 0, 0, 0])
    }
  }

  @Test func strayTrailingBytesAreReported() {
    #expect(throws: BoxParsingError.truncatedHeader(offset: 8, available: 3)) {
      try types(in: B.box("free", []) + [0, 0, 9])
    }
  }

  @Test func aMalformedHeaderEndsTheWalk() throws {
    var boxes = BoxIterator(
      topLevelOf: BoxReader(source: ArrayByteSource(B.rawBox(size: 3, "free") + B.box("moov", []))))
    #expect(throws: BoxParsingError.self) { try boxes.next() }
    #expect(try boxes.next() == nil)
  }

  @Test func childrenBelowTheDepthLimitAreRefused() throws {
    let bytes = B.box("moov", [])
    let reader = BoxReader(source: ArrayByteSource(bytes))
    let movie = try BoxHeader(parsing: bytes, at: 0, parentEnd: bytes.count)
    _ = try BoxIterator(
      childrenOf: movie, depth: BoxReader<ArrayByteSource>.maximumDepth - 1, reader: reader)
    #expect(throws: BoxParsingError.nestingTooDeep(type: .movie, offset: 0, limit: 16)) {
      try BoxIterator(
        childrenOf: movie, depth: BoxReader<ArrayByteSource>.maximumDepth, reader: reader)
    }
  }

  @Test func anUnreadableSourceBecomesAnError() {
    var boxes = BoxIterator(topLevelOf: BoxReader(source: FailingSource(count: 100)))
    #expect(throws: BoxParsingError.self) { try boxes.next() }
  }
}
