import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Fixtures/` (`Formats/` is made by `Fixtures/make-formats.sh`; the values
/// asserted are exiftool's, listed in `Fixtures/Formats.md`).
private func read(_ bytes: [UInt8], as format: MediaFormat) -> MediaMetadata {
  MetadataReaderTable.read(from: ArrayByteSource(bytes), format: format)
}

private func be16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
private func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
private func le16(_ value: UInt16) -> [UInt8] {
  withUnsafeBytes(of: value.littleEndian, Array.init)
}
private func le32(_ value: UInt32) -> [UInt8] {
  withUnsafeBytes(of: value.littleEndian, Array.init)
}

/// Reads every prefix of `file` (each byte up to `dense`, then every `step`th) and checks
/// that a cut file is never read silently wrong: without a problem, its size and dates are
/// the whole file's — except at `cleanCuts`, lengths where the prefix is itself a whole
/// file (a JP2 cut between two top-level boxes).
private func expectCutFilesAreNeverSilentlyWrong(
  _ file: [UInt8], as format: MediaFormat, dense: Int = 1024, step: Int = 61,
  cleanCuts: Set<Int> = [], sourceLocation: SourceLocation = #_sourceLocation
) {
  let whole = read(file, as: format)
  var length = 0
  while length < file.count {
    let cut = read(Array(file.prefix(length)), as: format)
    if cut.problems.isEmpty, !cleanCuts.contains(length) {
      #expect(
        cut.pixelWidth == whole.pixelWidth && cut.pixelHeight == whole.pixelHeight
          && cut.dateTimeOriginal == whole.dateTimeOriginal,
        "a cut at \(length) bytes was read without a problem but differently",
        sourceLocation: sourceLocation)
    }
    length += length < dense ? 1 : step
  }
}

/// Overwrites bytes of `file` with a fixed pseudo-random sequence, `rounds` times, and
/// reads each result: whatever it gives, a size is within the reader's bounds.
private func expectGarbledFilesStayBounded(
  _ file: [UInt8], as format: MediaFormat, rounds: Int = 400, maximumSide: Int,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var state: UInt32 = 0x9E37_79B9
  func next() -> Int {
    state = state &* 1_664_525 &+ 1_013_904_223
    return Int(state >> 8)
  }
  for _ in 0..<rounds {
    var garbled = file
    for _ in 0..<(1 + next() % 8) {
      // Mostly the first kilobyte, where the structures are.
      let index = next() % (next() % 4 == 0 ? garbled.count : min(garbled.count, 1024))
      garbled[index] = UInt8(truncatingIfNeeded: next())
    }
    let metadata = read(garbled, as: format)
    if let width = metadata.pixelWidth, let height = metadata.pixelHeight {
      #expect(
        (1...maximumSide).contains(width) && (1...maximumSide).contains(height),
        sourceLocation: sourceLocation)
    }
    if let duration = metadata.duration {
      #expect(duration.isFinite && duration >= 0, sourceLocation: sourceLocation)
    }
  }
}

@Suite struct PSDReaderTests {
  @Test func aPSDsSizeIsItsHeadersAndItsEXIFResourceGivesDatesPlaceAndOrientation() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/exif.psd"), as: .psd)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 48 && metadata.pixelHeight == 32)
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 32 && metadata.displayedHeight == 48)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2021-03-04T05:06:07+09:00")
    #expect(metadata.dateTimeOriginal?.source == .exifDateTimeOriginal)
    #expect(metadata.location?.latitude == 35.0116 && metadata.location?.longitude == 135.7681)
    #expect(!metadata.hasThumbnail)
  }

  @Test func aPSDWithOnlyXMPTakesItsDateAndPlaceFromIt() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/xmp-only.psd"), as: .psd)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 40 && metadata.pixelHeight == 30)
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.xmpDate?.iso8601 == "2020-02-03T04:05:06+01:00")
    #expect(metadata.xmpDate?.source == .xmpEXIFDateTimeOriginal)
    #expect(metadata.location?.latitude == 48.8584 && metadata.location?.longitude == 2.2945)
  }

  @Test func thePhoneFixturesPSDHasItsSize() throws {
    let metadata = read(try Sample.fixtures.bytes("Phones/Formats/layers.psd"), as: .psd)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 42 && metadata.pixelHeight == 32)
  }

  /// A PSD header of `width`×`height`, no color mode data, then `resources` as its image
  /// resources section.
  private func psd(width: UInt32 = 7, height: UInt32 = 5, resources: [UInt8]) -> [UInt8] {
    Array("8BPS".utf8) + be16(1) + [0, 0, 0, 0, 0, 0] + be16(3) + be32(height) + be32(width)
      + be16(8) + be16(3) + be32(0) + be32(UInt32(resources.count)) + resources
  }

  private func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
    Array("8BIM".utf8) + be16(id) + [0, 0] + be32(UInt32(data.count)) + data
      + (data.count % 2 == 1 ? [0] : [])
  }

  @Test func aFloodOfResourcesStopsAtTheBudgetWithAProblem() {
    var resources: [UInt8] = []
    for _ in 0..<(PSDMetadataReader.maximumResources + 5) { resources += resource(0x0400, []) }
    let metadata = read(psd(resources: resources), as: .psd)
    #expect(metadata.pixelWidth == 7 && metadata.pixelHeight == 5)
    #expect(metadata.problems.map(\.code) == [.unsupported])
    #expect(metadata.problems.first?.message.contains("more than 4096 image resources") == true)
  }

  @Test func anEXIFResourceLargerThanTheBudgetIsSkippedWithAProblem() {
    let big = [UInt8](repeating: 0, count: PSDMetadataReader.maximumResourceLength + 2)
    let metadata = read(psd(resources: resource(0x0422, big)), as: .psd)
    #expect(metadata.pixelWidth == 7)
    #expect(metadata.problems.map(\.code) == [.unsupported])
  }

  static let damagedResources: [(String, [UInt8])] = {
    let signature = Array("8BIM".utf8)
    let id = be16(0x0422)
    let longer: [UInt8] = signature + id + [0, 0] + be32(999)
    let unsigned: [UInt8] = Array("8BIX".utf8) + id + [0, 0] + be32(0)
    return [("a resource longer than its section", longer), ("no signature", unsigned)]
  }()

  @Test(arguments: damagedResources)
  func aDamagedResourceIsMalformedAndTheSizeStays(name: String, resources: [UInt8]) {
    let metadata = read(psd(resources: resources), as: .psd)
    #expect(metadata.pixelWidth == 7 && metadata.pixelHeight == 5, "\(name)")
    #expect(metadata.problems.map(\.code) == [.malformed], "\(name)")
  }

  @Test func anImpossibleSizeIsAnInvalidValue() {
    let metadata = read(psd(width: 0, resources: []), as: .psd)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
  }

  @Test func cutAndGarbledPSDsAreProblemsNeverWrongValues() throws {
    let file = try Sample.fixtures.bytes("Formats/exif.psd")
    expectCutFilesAreNeverSilentlyWrong(file, as: .psd)
    expectGarbledFilesStayBounded(file, as: .psd, maximumSide: PSDMetadataReader.maximumSide)
  }
}

@Suite struct JPEG2000ReaderTests {
  @Test func aJP2sSizeIsItsImageHeaderAndItsEXIFBoxGivesDateAndPlace() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/exif.jp2"), as: .jpeg2000)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 50 && metadata.pixelHeight == 20)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2019-11-12T13:14:15")
    #expect(metadata.location?.latitude == 51.5007 && metadata.location?.longitude == -0.1246)
  }

  @Test func aBareCodestreamHasItsSIZSize() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/bare.j2k"), as: .jpeg2000)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 36 && metadata.pixelHeight == 28)
  }

  @Test func thePhoneFixturesJP2HasItsSize() throws {
    let metadata = read(try Sample.fixtures.bytes("Phones/Formats/still.jp2"), as: .jpeg2000)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 43 && metadata.pixelHeight == 33)
  }

  private let signature: [UInt8] = [
    0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A,
  ]

  private func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
    be32(UInt32(content.count + 8)) + Array(type.utf8) + content
  }

  @Test func anEXIFBoxWithItsOffsetIsReadToo() {
    let tiff = EXIFTestTIFF.withDateTimeOriginal
    let file =
      signature + box("jp2h", box("ihdr", be32(9) + be32(11) + [0, 3, 7, 7, 0, 0]))
      + box("Exif", be32(0) + tiff)
    let metadata = read(file, as: .jpeg2000)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 11 && metadata.pixelHeight == 9)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2001-02-03T04:05:06")
  }

  @Test func aFloodOfBoxesStopsAtTheBudgetWithAProblem() {
    var file = signature + box("jp2h", box("ihdr", be32(9) + be32(11) + [0, 3, 7, 7, 0, 0]))
    for _ in 0..<(JPEG2000MetadataReader.maximumBoxes + 5) { file += box("free", []) }
    let metadata = read(file, as: .jpeg2000)
    #expect(metadata.pixelWidth == 11)
    #expect(metadata.problems.map(\.code) == [.unsupported])
  }

  @Test func aBoxLongerThanTheFileIsMalformed() {
    let file = signature + be32(0xFFFF_FFF0) + Array("jp2h".utf8) + [0, 0, 0, 0]
    let metadata = read(file, as: .jpeg2000)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code).contains(.malformed))
  }

  /// The offsets where the file's top-level boxes end.
  private func boxEnds(_ file: [UInt8]) -> Set<Int> {
    var ends: Set<Int> = []
    var offset = 0
    while offset + 8 <= file.count,
      let size = IntegerReader.bigEndian.uint32(file, at: offset), size >= 8
    {
      offset += Int(size)
      ends.insert(offset)
    }
    return ends
  }

  @Test func cutAndGarbledJP2sAreProblemsNeverWrongValues() throws {
    for path in ["Formats/exif.jp2", "Formats/bare.j2k"] {
      let file = try Sample.fixtures.bytes(path)
      expectCutFilesAreNeverSilentlyWrong(file, as: .jpeg2000, cleanCuts: boxEnds(file))
      expectGarbledFilesStayBounded(
        file, as: .jpeg2000, maximumSide: JPEG2000MetadataReader.maximumSide)
    }
  }
}

/// A classic little-endian TIFF whose EXIF IFD holds `DateTimeOriginal` 2001:02:03 04:05:06.
private enum EXIFTestTIFF {
  static var withDateTimeOriginal: [UInt8] {
    let date = Array("2001:02:03 04:05:06".utf8) + [0]
    // Header (8), IFD0 at 8: one entry (ExifIFDPointer -> 26), next 0; EXIF IFD at 26: one
    // entry (DateTimeOriginal, ASCII 20 at 44), next 0; the text at 44.
    return [0x49, 0x49, 0x2A, 0x00] + le32(8)
      + le16(1) + le16(0x8769) + le16(4) + le32(1) + le32(26) + le32(0)
      + le16(1) + le16(0x9003) + le16(2) + le32(20) + le32(44) + le32(0)
      + date
  }
}

@Suite struct CRWReaderTests {
  @Test func aCRWsCapturedTimeSizeAndRotationAreRead() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/camera.crw"), as: .raw)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 2048 && metadata.pixelHeight == 1536)
    #expect(metadata.orientation == 6)
    #expect(metadata.displayedWidth == 1536)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2003-11-10T17:39:26")
    #expect(metadata.dateTimeOriginal?.source == .canonRawDateTimeOriginal)
    #expect(metadata.make == "Canon")
    #expect(metadata.model == "Canon EOS 300D DIGITAL")
  }

  @Test func aMakeAndModelRecordWithAControlCharacterIsAProblemNotAName() {
    let makeModel: (UInt16, [UInt8]) = (0x080A, Array("Canon\u{0}EOS\u{1B}[2J\u{0}".utf8))
    let metadata = read(crw(heap([imageInfo, makeModel])), as: .raw)
    #expect(metadata.make == "Canon")
    #expect(metadata.model == nil)
    #expect(metadata.problems.map(\.code).contains(.invalidValue))
  }

  /// A CIFF heap: the records' data, the table, the table's offset.
  private func heap(_ records: [(UInt16, [UInt8])]) -> [UInt8] {
    var data: [UInt8] = []
    var table: [UInt8] = []
    for (type, value) in records {
      table += le16(type) + le32(UInt32(value.count)) + le32(UInt32(data.count))
      data += value
    }
    return data + le16(UInt16(records.count)) + table + le32(UInt32(data.count))
  }

  private func crw(_ root: [UInt8]) -> [UInt8] {
    Array("II".utf8) + le32(26) + Array("HEAPCCDR".utf8) + le32(0x0001_0002)
      + [UInt8](repeating: 0, count: 8) + root
  }

  private var imageInfo: (UInt16, [UInt8]) {
    (0x1810, le32(30) + le32(20) + le32(0x3F80_0000) + le32(180) + le32(8) + le32(24) + le32(0))
  }

  @Test func heapsNestedPastTheBudgetStopWithAProblem() {
    var inner = heap([imageInfo])
    for _ in 0..<(CRWMetadataReader.maximumDepth + 4) { inner = heap([(0x300A, inner)]) }
    let metadata = read(crw(inner), as: .raw)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code).contains(.unsupported))
  }

  @Test func aFloodOfRecordsStopsAtTheBudgetWithAProblem() {
    let records = [(UInt16, [UInt8])](
      repeating: (0x0805, []), count: CRWMetadataReader.maximumRecords + 5)
    let metadata = read(crw(heap([imageInfo] + records)), as: .raw)
    #expect(metadata.pixelWidth == 30 && metadata.orientation == 3)
    #expect(metadata.problems.map(\.code).contains(.unsupported))
  }

  @Test func aRecordOutsideItsHeapIsMalformed() {
    var root = heap([imageInfo])
    root[28 + 2 + 6] = 0xF0  // the record's offset, far past the heap
    let metadata = read(crw(root), as: .raw)
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.map(\.code).first == .malformed)
  }

  @Test func cutAndGarbledCRWsAreProblemsNeverWrongValues() throws {
    let file = try Sample.fixtures.bytes("Formats/camera.crw")
    expectCutFilesAreNeverSilentlyWrong(file, as: .raw)
    expectGarbledFilesStayBounded(file, as: .raw, rounds: 2000, maximumSide: 1 << 20)
  }
}

@Suite struct MRWReaderTests {
  @Test func anMRWsSizeIsItsPRDAndItsTIFFGivesDatesPlaceAndOrientation() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/camera.mrw"), as: .raw)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 3264 && metadata.pixelHeight == 2448)
    #expect(metadata.orientation == 8)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2004-11-18T23:14:58")
    #expect(metadata.dateTime == "2004:11:18 23:14:58")
    let location = try #require(metadata.location)
    #expect(abs(location.latitude - 45.4642) < 1e-6 && abs(location.longitude - 9.19) < 1e-6)
  }

  private func block(_ tag: String, _ data: [UInt8]) -> [UInt8] {
    [0] + Array(tag.utf8) + be32(UInt32(data.count)) + data
  }

  @Test func aFloodOfBlocksStopsAtTheBudgetWithAProblem() {
    var blocks: [UInt8] = []
    for _ in 0..<(MRWMetadataReader.maximumBlocks + 3) { blocks += block("PAD", []) }
    let metadata = read(MRWMetadataReader.magic + be32(UInt32(blocks.count)) + blocks, as: .raw)
    #expect(metadata.problems.map(\.code).contains(.unsupported))
    #expect(metadata.problems.contains { $0.message.contains("more than 64 blocks") })
  }

  @Test func aBlockLongerThanTheHeaderIsMalformed() {
    let blocks =
      block("PRD", [UInt8](repeating: 1, count: 16)) + [0] + Array("TTW".utf8)
      + be32(5000)
    let metadata = read(MRWMetadataReader.magic + be32(UInt32(blocks.count)) + blocks, as: .raw)
    #expect(metadata.pixelWidth == 257)
    #expect(metadata.problems.map(\.code).first == .malformed)
  }

  @Test func cutAndGarbledMRWsAreProblemsNeverWrongValues() throws {
    let file = try Sample.fixtures.bytes("Formats/camera.mrw")
    expectCutFilesAreNeverSilentlyWrong(file, as: .raw)
    expectGarbledFilesStayBounded(file, as: .raw, maximumSide: 1 << 16)
  }
}

@Suite struct TransportStreamReaderTests {
  @Test func anAVCHDStreamsSizeDateAndDurationAreRead() throws {
    let metadata = read(try Sample.fixtures.bytes("Formats/00002.MTS"), as: .mpegTransportStream)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 160 && metadata.pixelHeight == 120)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2008-12-31T23:16:24+01:00")
    #expect(metadata.dateTimeOriginal?.source == .h264DateTimeOriginal)
    #expect(metadata.duration == 1.9)
  }

  @Test func theMDPMMakerCodeNamesTheCameraMaker() {
    // An SEI unit: user data unregistered (type 5) holding the MDPM UUID, `MDPM`, and
    // three entries (the date, and the maker code 0x1011 with a model code).
    let mdpm: [UInt8] =
      [3, 0x18, 0x02, 0x20, 0x08, 0x12, 0x19, 0x31, 0x23, 0x16, 0x24, 0xE0, 0x10, 0x11, 0x05, 0x91]
    let payload =
      [
        0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9, 0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A,
        0x66,
      ]
      + Array("MDPM".utf8) + mdpm
    var stream = H264Stream()
    stream.scan([0, 0, 1, 0x06, 5, UInt8(payload.count)] + payload + [0x80])
    #expect(stream.make == "Canon")
    #expect(stream.recordingDate?.iso8601 == "2008-12-31T23:16:24+01:00")
    // A code no camera is known to write names no maker.
    var unknown = H264Stream()
    var other = payload
    other[other.count - 4] = 0x77
    unknown.scan([0, 0, 1, 0x06, 5, UInt8(other.count)] + other + [0x80])
    #expect(unknown.make == nil)
    #expect(unknown.recordingDate != nil)
  }

  @Test func theSampleStreamWithoutMDPMHasSizeAndDuration() throws {
    let metadata = read(
      try Sample.fixtures.bytes("Phones/Formats/00001.MTS"), as: .mpegTransportStream)
    #expect(metadata.problems.isEmpty)
    #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
    #expect(metadata.dateTimeOriginal == nil)
    #expect(metadata.duration == 0.9)
  }

  @Test func aVideoAssetsDateIsTheRecordingTime() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write(try Sample.fixtures.bytes("Formats/00002.MTS"), as: "00002.MTS")
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    let asset = try #require(contents.assets.first)
    #expect(asset.type == .video)
    #expect(asset.creationDate?.source == .h264DateTimeOriginal)
    #expect(asset.pixelWidth == 160 && asset.duration == 1.9)
  }

  @Test func aStreamThatLosesItsSyncIsMalformed() throws {
    var file = try Sample.fixtures.bytes("Formats/00002.MTS")
    file[4 + 192 * 5] = 0x00
    let metadata = read(file, as: .mpegTransportStream)
    #expect(metadata.problems.first?.message.contains("loses its sync at offset 960") == true)
  }

  @Test(arguments: [[UInt8](), [0x47], SampleBytes.noise(count: 2000)])
  func somethingElseIsMalformed(bytes: [UInt8]) {
    let metadata = read(bytes, as: .mpegTransportStream)
    #expect(metadata.pixelWidth == nil && metadata.duration == nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  /// A baseline-profile SPS (profile 66) with these fields, as bits: `ue` codes are
  /// Exp-Golomb, the rest fixed-width.
  private func sequenceParameterSet(
    widthInMacroblocks: Int, heightInMapUnits: Int, frameMacroblocksOnly: Bool,
    crop: (left: Int, right: Int, top: Int, bottom: Int)?
  ) -> [UInt8] {
    var bits: [Bool] = []
    func fixed(_ value: Int, _ count: Int) {
      for shift in stride(from: count - 1, through: 0, by: -1) {
        bits.append(value >> shift & 1 == 1)
      }
    }
    func ue(_ value: Int) {
      let code = value + 1
      let length = Int.bitWidth - code.leadingZeroBitCount
      fixed(0, length - 1)
      fixed(code, length)
    }
    fixed(66, 8)
    fixed(0, 8)
    fixed(30, 8)
    ue(0)  // seq_parameter_set_id
    ue(0)  // log2_max_frame_num_minus4
    ue(2)  // pic_order_cnt_type
    ue(1)  // max_num_ref_frames
    fixed(0, 1)  // gaps_in_frame_num_value_allowed_flag
    ue(widthInMacroblocks - 1)
    ue(heightInMapUnits - 1)
    fixed(frameMacroblocksOnly ? 1 : 0, 1)
    if !frameMacroblocksOnly { fixed(0, 1) }  // mb_adaptive_frame_field_flag
    fixed(1, 1)  // direct_8x8_inference_flag
    fixed(crop == nil ? 0 : 1, 1)
    if let crop {
      ue(crop.left)
      ue(crop.right)
      ue(crop.top)
      ue(crop.bottom)
    }
    fixed(1, 1)  // the RBSP stop bit (the VUI flag is never read)
    while bits.count % 8 != 0 { bits.append(false) }
    return stride(from: 0, to: bits.count, by: 8).map { start in
      bits[start..<(start + 8)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
    }
  }

  @Test func theSequenceParameterSetsSizeIsCroppedInChromaUnits() {
    // 1920×1088 progressive, cropped by 4 rows of 2: 1080.
    let progressive = sequenceParameterSet(
      widthInMacroblocks: 120, heightInMapUnits: 68, frameMacroblocksOnly: true,
      crop: (0, 0, 0, 4))
    #expect(H264Stream.sequenceSize(progressive).map { [$0.width, $0.height] } == [1920, 1080])
    // Interlaced (field pairs): 34 map units of 32 rows, cropped by 2 units of 4: 1080.
    let interlaced = sequenceParameterSet(
      widthInMacroblocks: 120, heightInMapUnits: 34, frameMacroblocksOnly: false,
      crop: (0, 0, 0, 2))
    #expect(H264Stream.sequenceSize(interlaced).map { [$0.width, $0.height] } == [1920, 1080])
    // Horizontal cropping is in units of 2 for 4:2:0: 208 − 2×(1+3) = 200.
    let cropped = sequenceParameterSet(
      widthInMacroblocks: 13, heightInMapUnits: 8, frameMacroblocksOnly: true, crop: (1, 3, 0, 0))
    #expect(H264Stream.sequenceSize(cropped).map { [$0.width, $0.height] } == [200, 128])
    // Cropped away entirely, or cut short: no size.
    let empty = sequenceParameterSet(
      widthInMacroblocks: 1, heightInMapUnits: 1, frameMacroblocksOnly: true, crop: (8, 0, 0, 0))
    #expect(H264Stream.sequenceSize(empty) == nil)
    #expect(H264Stream.sequenceSize(Array(progressive.prefix(4))) == nil)
  }

  @Test func exponentialGolombCodesAreDecoded() {
    // 1 | 010 | 011 | 00100 | 00101 -> 0, 1, 2, 3, 4 (ue); the signed reading of 4 is -2.
    var bits = BitReader([0b1010_0110, 0b0100_0010, 0b1000_0000])
    #expect(bits.unsigned() == 0)
    #expect(bits.unsigned() == 1)
    #expect(bits.unsigned() == 2)
    #expect(bits.unsigned() == 3)
    #expect(bits.signed() == -2)
    #expect(bits.unsigned() == nil)
    var zeros = BitReader([UInt8](repeating: 0, count: 8))
    #expect(zeros.unsigned() == nil)
  }

  @Test func cutAndGarbledStreamsKeepTheirSizeOrSayWhy() throws {
    let file = try Sample.fixtures.bytes("Formats/00002.MTS")
    let whole = read(file, as: .mpegTransportStream)
    var length = 0
    while length < file.count {
      let cut = read(Array(file.prefix(length)), as: .mpegTransportStream)
      if cut.problems.isEmpty {
        #expect(cut.pixelWidth == whole.pixelWidth && cut.pixelHeight == whole.pixelHeight)
      }
      length += 97
    }
    expectGarbledFilesStayBounded(
      file, as: .mpegTransportStream, maximumSide: TransportStreamReader.maximumSide)
  }
}

@Suite struct NewFormatSnifferTests {
  @Test(arguments: [
    ("Formats/exif.psd", MediaFormat.psd), ("Formats/exif.jp2", .jpeg2000),
    ("Formats/bare.j2k", .jpeg2000), ("Formats/camera.crw", .raw), ("Formats/camera.mrw", .raw),
  ])
  func theFixturesAreSniffedByContent(path: String, format: MediaFormat) throws {
    let header = Array(try Sample.fixtures.bytes(path).prefix(MediaSniffer.headerLength))
    #expect(MediaSniffer.format(ofHeader: header) == format)
    #expect(MediaSniffer.format(ofHeader: header, name: Array("x.dat".utf8)) == format)
  }

  @Test func aTransportStreamIsOneByItsNameAndItsSyncBytes() throws {
    let header = Array(
      try Sample.fixtures.bytes("Formats/00002.MTS").prefix(MediaSniffer.headerLength))
    #expect(MediaSniffer.format(ofHeader: header) == nil)
    #expect(
      MediaSniffer.format(ofHeader: header, name: Array("a.MTS".utf8)) == .mpegTransportStream)
  }

  @Test func crwAndMRWAreReadByTheirOwnReadersNeverByGexiv2() throws {
    for (path, reader) in [
      ("Formats/camera.crw", "CRWMetadataReader"), ("Formats/camera.mrw", "MRWMetadataReader"),
    ] {
      let file = try Sample.fixtures.bytes(path)
      let row = MetadataReaderTable.row(for: .raw, source: ArrayByteSource.self) {
        Array(file.prefix(MetadataReaderTable.headerLength))
      }
      #expect("\(row.reader)" == reader)
      #expect(row.thumbnailReader == nil)
    }
    #expect(!Exiv2MetadataReader.isAllowed(.psd) && !Exiv2MetadataReader.isAllowed(.jpeg2000))
  }
}
