/// Reads a BigTIFF file's IFD0 and its EXIF and GPS sub-IFDs (exiv2 0.27.6 does not
/// support BigTIFF).
///
/// BigTIFF (*BigTIFF Design*, libtiff documentation, `specification/bigtiff`) is TIFF 6.0
/// with 64-bit offsets:
/// - a 16-byte header: `II` or `MM`, version 43, the offset size 8, a reserved 0, then the
///   8-byte offset of IFD0;
/// - IFDs of an 8-byte entry count, 20-byte entries (tag u16, type u16, count u64, and an
///   8-byte field holding the value when it fits in 8 bytes, else its offset), then an
///   8-byte next-IFD offset;
/// - the new types `LONG8` (16), `SLONG8` (17) and `IFD8` (18), each 8 bytes.
///
/// The tags are collected into an ``EXIFTagTable`` (values decoded by
/// ``TIFFDirectoryWalker/decode(type:count:data:isBigEndian:)``, and `LONG8`/`SLONG8` as
/// `LONG`/`SLONG` when they fit) and handed to ``EXIFInterpreter``, as for every other
/// format. The size is IFD0's `ImageWidth` × `ImageLength` (`SHORT`, `LONG` or `LONG8`),
/// which is what exiftool's `Composite:ImageSize` reports.
///
/// How it stays safe: the file is read in small pieces, never whole (a BigTIFF is
/// typically more than 4 GB); at most ``maximumDirectories`` IFDs are read, each once (a
/// pointer back to an IFD already read is a fault, not a loop); at most
/// ``maximumEntries`` entries per IFD and, per value, at most
/// ``EXIFValue/maximumUndefinedLength`` bytes; every offset sum is overflow-checked and
/// every range checked against the file before it is read.
enum BigTIFFReader {
  /// The most IFDs read: IFD0, EXIF and GPS, with room for nothing else to loop.
  static let maximumDirectories = 8
  /// The most entries read from one IFD (20 bytes each).
  static let maximumEntries = 4096

  /// Whether a file starts with a BigTIFF header's byte order and version (`II+\0` or
  /// `MM\0+`).
  ///
  /// - Parameter header: The file's first bytes (4 are enough).
  static func isBigTIFF(header: [UInt8]) -> Bool {
    header.starts(with: [0x49, 0x49, 0x2B, 0x00]) || header.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
  }

  /// Reads everything the engine needs from a BigTIFF. Never throws and never traps: what
  /// cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size and orientation, with the problems found.
  static func read<Source: ByteSource>(from source: Source) -> MediaMetadata {
    var metadata = MediaMetadata()
    var walker: BigTIFFDirectoryWalker<Source>
    do {
      walker = try BigTIFFDirectoryWalker(source: source)
    } catch {
      metadata.problems.append(error)
      return metadata
    }
    let table = walker.read()
    if (table.entryCounts[.ifd0] ?? 0) == 0 {
      metadata.problems.append(
        .init(
          .malformed,
          "The BigTIFF file's IFD0 could not be read: " + walker.faults.joined(separator: " ")))
    } else if !walker.faults.isEmpty {
      metadata.problems.append(
        .init(
          .malformed,
          "The BigTIFF structure is damaged: " + walker.faults.joined(separator: " ")))
    }
    EXIFInterpreter.apply(table, to: &metadata)
    if let width = table[.ifd0, EXIFTag.imageWidth]?.singleInteger,
      let height = table[.ifd0, EXIFTag.imageLength]?.singleInteger, width > 0, height > 0
    {
      metadata.pixelWidth = width
      metadata.pixelHeight = height
    }
    return metadata
  }
}

/// Walks a BigTIFF file's IFD0 and the EXIF and GPS IFDs it points to, reading from a
/// ``ByteSource`` only the bytes it needs.
struct BigTIFFDirectoryWalker<Source: ByteSource> {
  /// The file.
  let source: Source
  /// Whether multi-byte numbers are big-endian (`MM`).
  let isBigEndian: Bool
  /// The offset of IFD0, from the header.
  let firstDirectoryOffset: UInt64
  /// What went wrong while walking, as sentences; the walk skips past each.
  private(set) var faults: [String] = []

  /// The length of the header, of an entry, and of an entry's value field.
  private static var headerLength: Int { 16 }
  private static var entryLength: Int { 20 }
  private static var fieldLength: Int { 8 }

  /// One 20-byte entry, with its 8-byte value field.
  struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: UInt64
    var field: [UInt8]
  }

  /// Reads and checks the header.
  ///
  /// - Throws: An ``AssetProblem`` when the header cannot be read or is not BigTIFF's
  ///   (version 43, offset size 8, reserved 0).
  init(source: Source) throws(AssetProblem) {
    self.source = source
    let header = try source.bytes(at: 0, length: Self.headerLength)
    switch (header.first, header.dropFirst().first) {
    case (0x49, 0x49): isBigEndian = false
    case (0x4D, 0x4D): isBigEndian = true
    default: throw AssetProblem(.malformed, "The file does not start with a TIFF byte order.")
    }
    let bigEndian = isBigEndian
    func number(_ offset: Int, _ width: Int) -> UInt64? {
      Self.number(header[...], at: offset, width: width, isBigEndian: bigEndian)
    }
    guard header.count == Self.headerLength, let first = number(8, 8) else {
      throw AssetProblem(
        .malformed, "The BigTIFF header is cut short: \(header.count) of 16 bytes.")
    }
    guard number(2, 2) == 43, number(4, 2) == 8, number(6, 2) == 0 else {
      throw AssetProblem(
        .malformed,
        "The BigTIFF header does not say version 43 with 8-byte offsets; it was not read.")
    }
    firstDirectoryOffset = first
  }

  /// Reads IFD0 and its EXIF and GPS sub-IFDs, decoding the tags in
  /// ``TIFFDirectoryWalker/decodedTags``.
  ///
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read() -> EXIFTagTable {
    var table = EXIFTagTable()
    var visited: Set<UInt64> = []
    let ifd0 = directory(at: firstDirectoryOffset, visited: &visited)
    store(ifd0, as: .ifd0, into: &table)
    for (pointer, target) in [
      (EXIFTag.exifIFDPointer, EXIFDirectory.exif), (EXIFTag.gpsInfoIFDPointer, .gps),
    ] {
      guard let entry = ifd0.first(where: { $0.tag == pointer }) else { continue }
      guard let offset = pointerValue(entry) else {
        faults.append(
          "Pointer tag 0x\(String(pointer, radix: 16)) is not one LONG, IFD, LONG8 or IFD8.")
        continue
      }
      store(directory(at: offset, visited: &visited), as: target, into: &table)
    }
    return table
  }

  /// The offset a pointer entry holds: one `LONG` (4), `IFD` (13), `LONG8` (16) or `IFD8`
  /// (18).
  private func pointerValue(_ entry: Entry) -> UInt64? {
    guard entry.count == 1 else { return nil }
    switch entry.type {
    case 4, 13: return Self.number(entry.field[...], at: 0, width: 4, isBigEndian: isBigEndian)
    case 16, 18: return Self.number(entry.field[...], at: 0, width: 8, isBigEndian: isBigEndian)
    default: return nil
    }
  }

  private mutating func directory(at offset: UInt64, visited: inout Set<UInt64>) -> [Entry] {
    guard visited.count < BigTIFFReader.maximumDirectories, visited.insert(offset).inserted else {
      faults.append("IFD at \(offset) was already read or too many IFDs.")
      return []
    }
    guard offset >= UInt64(Self.headerLength), let start = Int(exactly: offset),
      start <= source.count - 8
    else {
      faults.append("IFD offset \(offset) lies in the 16-byte header or past the end of the file.")
      return []
    }
    let declaredBytes: [UInt8]
    do {
      declaredBytes = try source.bytes(at: start, length: 8)
    } catch {
      faults.append(error.message)
      return []
    }
    guard let declared = Self.number(declaredBytes[...], at: 0, width: 8, isBigEndian: isBigEndian)
    else {
      faults.append("IFD at \(offset) is cut short.")
      return []
    }
    let available = (source.count - start - 8) / Self.entryLength
    let readable = min(available, BigTIFFReader.maximumEntries)
    if declared > UInt64(readable) {
      faults.append(
        "IFD at \(offset) declares \(declared) entries; only \(readable) were read.")
    }
    let entryCount = Int(min(declared, UInt64(readable)))
    guard entryCount > 0 else { return [] }
    let entryBytes: [UInt8]
    do {
      entryBytes = try source.bytes(at: start + 8, length: entryCount * Self.entryLength)
    } catch {
      faults.append(error.message)
      return []
    }
    var entries: [Entry] = []
    for index in 0..<entryCount {
      let position = index * Self.entryLength
      guard position <= entryBytes.count - Self.entryLength,
        let tag = Self.number(entryBytes[...], at: position, width: 2, isBigEndian: isBigEndian),
        let type = Self.number(
          entryBytes[...], at: position + 2, width: 2, isBigEndian: isBigEndian),
        let count = Self.number(
          entryBytes[...], at: position + 4, width: 8, isBigEndian: isBigEndian)
      else { break }
      let field = Array(entryBytes[(position + 12)..<(position + Self.entryLength)])
      entries.append(
        Entry(
          tag: UInt16(truncatingIfNeeded: tag), type: UInt16(truncatingIfNeeded: type),
          count: count, field: field))
    }
    return entries
  }

  private mutating func store(
    _ entries: [Entry], as directory: EXIFDirectory, into table: inout EXIFTagTable
  ) {
    table.entryCounts[directory] = entries.count
    for entry in entries
    where TIFFDirectoryWalker.decodedTags.contains(.init(directory: directory, tag: entry.tag)) {
      if let value = value(of: entry) {
        table.values[.init(directory: directory, tag: entry.tag)] = value
      } else {
        faults.append("Tag 0x\(String(entry.tag, radix: 16)) has a value outside the file.")
      }
    }
  }

  /// The length of one component of a TIFF or BigTIFF type, or `nil` for an unknown type.
  private static func unitLength(ofType type: UInt16) -> Int? {
    switch type {
    case 16, 17, 18: 8
    default: TIFFDirectoryWalker.unitLength(ofType: type)
    }
  }

  /// The value of an entry, or `nil` when it lies outside the file or cannot be read.
  private func value(of entry: Entry) -> EXIFValue? {
    guard let unit = Self.unitLength(ofType: entry.type) else { return .other(type: entry.type) }
    guard let count = Int(exactly: entry.count) else { return nil }
    let (length, overflow) = count.multipliedReportingOverflow(by: unit)
    guard !overflow else { return nil }
    // Only what decoding uses is read: a few components, or a bounded run of bytes.
    let wanted: Int
    switch entry.type {
    case 2, 7: wanted = min(length, EXIFValue.maximumUndefinedLength)
    default: wanted = min(count, TIFFDirectoryWalker.maximumComponents) * unit
    }
    let data: [UInt8]
    if length <= Self.fieldLength {
      data = Array(entry.field.prefix(wanted))
    } else {
      guard
        let offset = Self.number(entry.field[...], at: 0, width: 8, isBigEndian: isBigEndian),
        let start = Int(exactly: offset)
      else { return nil }
      let (end, endOverflow) = start.addingReportingOverflow(length)
      guard !endOverflow, end <= source.count else { return nil }
      guard let bytes = try? source.bytes(at: start, length: wanted), bytes.count == wanted
      else { return nil }
      data = bytes
    }
    switch entry.type {
    case 16:
      let values = components(data, count: count)
      let narrow = values.compactMap { UInt32(exactly: $0) }
      return narrow.count == values.count ? .long(narrow) : .other(type: 16)
    case 17:
      let values = components(data, count: count).map { Int64(bitPattern: $0) }
      let narrow = values.compactMap { Int32(exactly: $0) }
      return narrow.count == values.count ? .signedLong(narrow) : .other(type: 17)
    case 18: return .other(type: 18)
    default:
      return TIFFDirectoryWalker.decode(
        type: entry.type, count: count, data: data[...], isBigEndian: isBigEndian)
    }
  }

  /// The first (at most ``TIFFDirectoryWalker/maximumComponents``) 8-byte components.
  private func components(_ data: [UInt8], count: Int) -> [UInt64] {
    (0..<min(count, TIFFDirectoryWalker.maximumComponents)).compactMap {
      Self.number(data[...], at: $0 * 8, width: 8, isBigEndian: isBigEndian)
    }
  }

  /// The unsigned number of `width` bytes at `offset` of `bytes`, or `nil` past the end.
  static func number(_ bytes: ArraySlice<UInt8>, at offset: Int, width: Int, isBigEndian: Bool)
    -> UInt64?
  {
    guard offset >= 0, width > 0, width <= 8, offset <= bytes.count - width else { return nil }
    let start = bytes.startIndex + offset
    let field = bytes[start..<(start + width)]
    let ordered = isBigEndian ? Array(field) : field.reversed()
    return ordered.reduce(0) { $0 << 8 | UInt64($1) }
  }
}
