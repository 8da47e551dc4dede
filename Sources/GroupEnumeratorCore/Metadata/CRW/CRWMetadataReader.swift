internal import FoundationEssentials

/// Reads a Canon CRW RAW (the Camera Image File Format, CIFF 1.0r4): its capture time,
/// image size and rotation, with a bounded walk of its heaps.
///
/// A CRW starts with the byte order (`II`, or `MM`), the 32-bit header length and
/// `HEAPCCDR`. The rest of the file is the root heap. A heap's last four bytes give the
/// offset (from the heap's start) of its record table: a 16-bit count, then 10-byte
/// records of a 16-bit type, a 32-bit size and a 32-bit offset into the heap. Bits 14–15
/// of the type say where the data is (`0x4000`: in the record's own eight bytes); bits
/// 11–13 its kind (`0x2800` and `0x3000`: a sub-heap, walked the same way); the rest is
/// the tag. Read, as exiftool's `CanonRaw` tags name them:
/// - `0x180e` (captured time): a 32-bit count of seconds since 1970 on the camera's clock,
///   kept as a wall-clock time of unknown zone (the time zone fields beside it are zero in
///   the cameras we have seen) — exiftool's `CanonRaw:DateTimeOriginal`, source
///   `canonraw:DateTimeOriginal`;
/// - `0x1810` (image info): width and height (32-bit), and at offset 12 the rotation
///   (0, 90, 180 or 270), turned into the EXIF orientation 1, 6, 3 or 8 as exiftool does;
/// - `0x080a` (make and model): two NUL-terminated texts, the maker then the model,
///   cleaned as EXIF's (``CameraText``).
///
/// How it stays safe: at most ``maximumDepth`` nested heaps and ``maximumRecords`` records
/// in all; each table is read in one bounded read, each value only when its size is
/// right; every offset and size is checked against its heap, and a heap can only hold
/// heaps that lie inside it, so the walk ends.
enum CRWMetadataReader: MetadataReader {
  /// The deepest heap walked (the root heap is depth 0; real files nest three deep).
  static let maximumDepth = 8
  /// The most records looked at in the whole file (real files have about a hundred).
  static let maximumRecords = 4096

  static let capturedTimeTag: UInt16 = 0x180E
  static let imageInfoTag: UInt16 = 0x1810
  static let makeModelTag: UInt16 = 0x080A
  /// The most bytes of the make-and-model record read (real ones are 32 or 64).
  static let maximumMakeModelLength = 512

  /// Whether a file's first bytes are a CIFF header: a byte order, then `HEAPCCDR` at 6.
  ///
  /// - Parameter header: The file's first bytes (14 are enough).
  static func isCRW(header: [UInt8]) -> Bool {
    header.count >= 14 && (header.starts(with: [0x49, 0x49]) || header.starts(with: [0x4D, 0x4D]))
      && Array(header[6..<14]) == Array("HEAPCCDR".utf8)
  }

  /// What the walk found, and how much of the budget it used.
  private struct Walk {
    var capturedTime: [UInt8]?
    var imageInfo: [UInt8]?
    var makeModel: [UInt8]?
    var records = 0
    var budgetTripped = false
  }

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    collecting { metadata throws(AssetProblem) in try read(source, into: &metadata) }
  }

  private static func read(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let header = try source.bytes(at: 0, length: 14)
    guard isCRW(header: header),
      let integers = IntegerReader(tiffByteOrderMark: header[0], header[1]),
      let headerLength = integers.uint32(header, at: 2), Int(headerLength) < source.count
    else {
      metadata.report(.init(.malformed, "The CRW header is cut short or not a CIFF header."))
      return
    }
    var walk = Walk()
    try walkHeap(
      Int(headerLength)..<source.count, depth: 0, source: source, integers: integers,
      walk: &walk, metadata: &metadata)
    if walk.budgetTripped {
      metadata.reportTrippedBudget(
        .init(
          .unsupported,
          "The CRW's heaps hold more than \(maximumRecords) records or nest deeper than "
            + "\(maximumDepth); the rest were not read."))
    }
    if let time = walk.capturedTime.flatMap({ integers.uint32($0, at: 0) }) {
      if let utc = CaptureDate(
        utc: Date(timeIntervalSince1970: Double(time)), source: .canonRawDateTimeOriginal),
        let date = CaptureDate(
          year: utc.year, month: utc.month, day: utc.day, hour: utc.hour, minute: utc.minute,
          second: utc.second, zone: .unknown, source: .canonRawDateTimeOriginal)
      {
        metadata.dateTimeOriginal = date
      } else {
        metadata.report(.init(.invalidValue, "The CRW's captured time (\(time)) is not a date."))
      }
    } else {
      metadata.report(.init(.malformed, "The CRW has no captured time (0x180e) record."))
    }
    if let makeModel = walk.makeModel { readMakeModel(makeModel, into: &metadata) }
    guard let info = walk.imageInfo, let width = integers.uint32(info, at: 0),
      let height = integers.uint32(info, at: 4), let rotation = integers.uint32(info, at: 12)
    else {
      metadata.report(.init(.malformed, "The CRW has no image info (0x1810) record."))
      return
    }
    if width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 {
      metadata.pixelWidth = Int(width)
      metadata.pixelHeight = Int(height)
    } else {
      metadata.report(.init(.invalidValue, "The CRW's image info gives \(width)×\(height) pixels."))
    }
    switch Int32(bitPattern: rotation) {
    case 0: metadata.orientation = 1
    case 90: metadata.orientation = 6
    case 180: metadata.orientation = 3
    case 270, -90: metadata.orientation = 8
    default:
      metadata.report(
        .init(.invalidValue, "The CRW's rotation is \(Int32(bitPattern: rotation))°."))
    }
  }

  /// The maker and model of a `0x080a` record: the text before its first NUL, and the
  /// text after it up to the next.
  private static func readMakeModel(_ bytes: [UInt8], into metadata: inout MediaMetadata) {
    let make = bytes.prefix { $0 != 0 }
    let model = bytes.dropFirst(make.count + 1).prefix { $0 != 0 }
    for (field, text) in [("make", make), ("model", model)] {
      do {
        let value = try CameraText.parse(text)
        if field == "make" { metadata.make = value } else { metadata.model = value }
      } catch {
        metadata.report(.init(.invalidValue, "The CRW's camera \(field) \(error.reason); ignored."))
      }
    }
  }

  /// Walks the heap at `range`: its record table, and the sub-heaps inside it.
  private static func walkHeap(
    _ range: Range<Int>, depth: Int, source: some ByteSource, integers: IntegerReader,
    walk: inout Walk, metadata: inout MediaMetadata
  ) throws(AssetProblem) {
    guard depth <= maximumDepth else {
      walk.budgetTripped = true
      return
    }
    let heapName = "The CRW heap at offset \(range.lowerBound) (\(range.count) bytes)"
    guard range.count >= 6,
      let tableOffset = integers.uint32(
        try source.bytes(at: range.upperBound - 4, length: 4), at: 0),
      Int(tableOffset) <= range.count - 6
    else {
      metadata.report(.init(.malformed, "\(heapName) has no record table inside it."))
      return
    }
    let tableStart = range.lowerBound + Int(tableOffset)
    let countBytes = try source.bytes(at: tableStart, length: 2)
    guard let count = integers.uint16(countBytes, at: 0) else {
      metadata.report(.init(.malformed, "\(heapName) ends inside its record table."))
      return
    }
    let available = (range.upperBound - 4 - tableStart - 2) / 10
    let wanted = min(Int(count), available, maximumRecords - walk.records)
    if Int(count) > available {
      metadata.report(
        .init(.malformed, "\(heapName) claims \(count) records; it has room for \(available)."))
    }
    if wanted < min(Int(count), available) { walk.budgetTripped = true }
    guard wanted > 0 else { return }
    walk.records += wanted
    let table = try source.bytes(at: tableStart + 2, length: wanted * 10)
    for index in 0..<(table.count / 10) {
      let at = index * 10
      guard let type = integers.uint16(table, at: at),
        let size = integers.uint32(table, at: at + 2),
        let offset = integers.uint32(table, at: at + 6)
      else { break }
      let inRecord = type & 0xC000 == 0x4000
      let kind = type & 0x3800
      let tag = type & 0x3FFF
      if inRecord { continue }  // No value read here is small enough to live in a record.
      guard Int(offset) <= tableStart - range.lowerBound,
        Int(size) <= tableStart - range.lowerBound - Int(offset)
      else {
        metadata.report(
          .init(
            .malformed,
            "\(heapName): record 0x\(String(type, radix: 16)) (\(size) bytes at \(offset)) lies "
              + "outside the heap's data."))
        continue
      }
      let start = range.lowerBound + Int(offset)
      if kind == 0x2800 || kind == 0x3000 {
        try walkHeap(
          start..<(start + Int(size)), depth: depth + 1, source: source, integers: integers,
          walk: &walk, metadata: &metadata)
      } else if tag == capturedTimeTag, walk.capturedTime == nil, size >= 4 {
        walk.capturedTime = try source.bytes(at: start, length: 4)
      } else if tag == imageInfoTag, walk.imageInfo == nil, size >= 16 {
        walk.imageInfo = try source.bytes(at: start, length: 16)
      } else if tag == makeModelTag, walk.makeModel == nil, size > 0 {
        walk.makeModel = try source.bytes(
          at: start, length: min(Int(size), maximumMakeModelLength))
      }
    }
  }
}
