import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The one TIFF walker, classic layout: what it reads, and the sentences its faults say.
@Suite struct TIFFDirectoryWalkerTests {
  @Test func aClassicWalkerReadsIFD0AndTheSubIFDsItPointsTo() throws {
    var builder = EXIFTestBuilder()
    builder.bigEndian = true
    builder.ifd0 = [(EXIFTag.orientation, .short([6]))]
    builder.exif = [(EXIFTag.dateTimeOriginal, .ascii("2024:05:06 07:08:09"))]
    builder.gps = [(EXIFTag.gpsLatitudeRef, .ascii("N"))]
    var walker = try #require(TIFFDirectoryWalker(tiff: builder.tiff()))
    let table = walker.read()
    #expect(table[.ifd0, EXIFTag.orientation] == .short([6]))
    #expect(table[.exif, EXIFTag.dateTimeOriginal] == .ascii(Array("2024:05:06 07:08:09\0".utf8)))
    #expect(table[.gps, EXIFTag.gpsLatitudeRef] == .ascii(Array("N\0".utf8)))
    #expect(walker.faults.isEmpty)
  }

  @Test func bytesThatAreNotClassicTIFFGiveNoWalker() {
    #expect(TIFFDirectoryWalker(tiff: []) == nil)
    #expect(TIFFDirectoryWalker(tiff: Array("II*".utf8)) == nil)
    // A BigTIFF header is not a classic one.
    #expect(TIFFDirectoryWalker(tiff: [0x49, 0x49, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0, 0]) == nil)
  }

  @Test func aPointerBackToIFD0IsAFaultNotALoop() throws {
    // II*\0, IFD0 at 8: one entry, ExifIFDPointer (LONG) pointing at IFD0 itself.
    let tiff: [UInt8] =
      [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00]
      + [0x69, 0x87, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00]
      + [0x00, 0x00, 0x00, 0x00]
    var walker = try #require(TIFFDirectoryWalker(tiff: tiff))
    let table = walker.read()
    #expect(table.entryCounts[.ifd0] == 1)
    #expect(table.entryCounts[.exif] == 0)
    #expect(walker.faults == [.directoryRevisited(offset: 8)])
    #expect(walker.faults.map(\.description) == ["IFD at 8 was already read or too many IFDs."])
  }

  @Test func aDirectoryThatDeclaresMoreEntriesThanFitIsReadAsFarAsItGoes() throws {
    // IFD0 declares 3 entries; one fits.
    let tiff: [UInt8] =
      [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x03, 0x00]
      + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00]
    var walker = try #require(TIFFDirectoryWalker(tiff: tiff))
    let table = walker.read()
    #expect(table[.ifd0, EXIFTag.orientation] == .short([3]))
    #expect(walker.faults.map(\.description) == ["IFD at 8 declares 3 entries; only 1 fit."])
  }

  @Test func faultSentencesNameTheLayoutTheyCameFrom() {
    #expect(
      TIFFParsingError.pointerNotOffset(tag: 0x8769, layout: .classic).description
        == "Pointer tag 0x8769 is not one LONG.")
    #expect(
      TIFFParsingError.pointerNotOffset(tag: 0x8769, layout: .big).description
        == "Pointer tag 0x8769 is not one LONG, IFD, LONG8 or IFD8.")
    #expect(
      TIFFParsingError.valueOutOfBounds(tag: 0x132, layout: .classic).description
        == "Tag 0x132 has a value outside the block.")
    #expect(
      TIFFParsingError.directoryOutOfBounds(offset: 99, layout: .big).description
        == "IFD offset 99 lies in the 16-byte header or past the end of the file.")
  }

  @Test(arguments: [false, true])
  func theMakerNoteQueryGivesItsBytesWhateverTheByteOrder(bigEndian: Bool) throws {
    let note = Array("Apple iOS\0".utf8) + [0, 1, 0x4D, 0x4D, 0, 0]
    var builder = EXIFTestBuilder()
    builder.bigEndian = bigEndian
    builder.exif = [(EXIFTag.makerNote, .undefined(note))]
    let walker = try #require(TIFFDirectoryWalker(tiff: builder.tiff()))
    #expect(walker.makerNote() == note)
  }

  @Test func aBlockWithoutAMakerNoteGivesNone() throws {
    var builder = EXIFTestBuilder()
    builder.exif = [(EXIFTag.dateTimeOriginal, .ascii("2024:05:06 07:08:09"))]
    let walker = try #require(TIFFDirectoryWalker(tiff: builder.tiff()))
    #expect(walker.makerNote() == nil)
  }
}
