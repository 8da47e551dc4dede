/// A small, bounds-checked reader of the TIFF structure inside an EXIF block.
///
/// libexif 0.6.24 stops reading IFD0 at the first pointer tag whose value lies past the
/// end of the block (Samsung cameras write such thumbnail offsets), and so loses the EXIF
/// and GPS sub-IFDs that follow (fixed upstream in 0.6.25). This walker reads IFD0 and
/// the sub-IFDs it points to, skipping any entry it cannot read instead of giving up, so
/// the reader can recover those tags.
///
/// TIFF 6.0 §2: an 8-byte header (`II*\0` or `MM\0*` + the first IFD's offset), then IFDs
/// of a 2-byte entry count, 12-byte entries (tag, type, count, value or offset) and a
/// 4-byte next-IFD offset. Offsets count from the header.
struct TIFFDirectoryWalker {
  /// The TIFF bytes (the EXIF payload after `Exif\0\0`).
  let bytes: [UInt8]
  /// Whether multi-byte numbers are big-endian (`MM`).
  let isBigEndian: Bool

  /// What went wrong while walking, as sentences; the walk skips past each.
  private(set) var faults: [String] = []

  /// Directories read at most, so that a pointer cycle or a bomb ends quickly.
  private static let maximumDirectories = 8

  /// Creates a walker over TIFF bytes.
  ///
  /// - Returns: `nil` when the bytes do not start with a TIFF header.
  init?(tiff bytes: [UInt8]) {
    guard bytes.count >= 8 else { return nil }
    switch (bytes[0], bytes[1]) {
    case (0x49, 0x49): isBigEndian = false
    case (0x4D, 0x4D): isBigEndian = true
    default: return nil
    }
    self.bytes = bytes
    guard unsigned16(at: 2) == 42 else { return nil }
  }

  /// Reads IFD0 and its EXIF and GPS sub-IFDs, decoding the tags in
  /// ``TIFFDirectoryWalker/decodedTags``.
  ///
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read() -> EXIFTagTable { read(firstDirectoryAs: .ifd0) }

  /// Reads the directory the header points to as `directory`; when that is IFD0, also the
  /// EXIF and GPS sub-IFDs it points to.
  ///
  /// A block whose first IFD is not IFD0 is how Canon CR3 stores its EXIF and GPS IFDs:
  /// each in a TIFF block of its own (`CMT2`, `CMT4`), see ``CR3MetadataReader``.
  ///
  /// - Parameter directory: What the first IFD is.
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read(firstDirectoryAs directory: EXIFDirectory) -> EXIFTagTable {
    var table = EXIFTagTable()
    var visited: Set<Int> = []
    guard let first = unsigned32(at: 4).flatMap({ Int(exactly: $0) }) else { return table }
    let firstEntries = self.directory(at: first, visited: &visited)
    store(firstEntries, as: directory, into: &table)
    guard directory == .ifd0 else { return table }
    for (pointer, target) in [
      (EXIFTag.exifIFDPointer, EXIFDirectory.exif), (EXIFTag.gpsInfoIFDPointer, .gps),
    ] {
      guard let entry = firstEntries.first(where: { $0.tag == pointer }) else { continue }
      guard entry.count == 1, entry.type == 4 || entry.type == 13,
        let offset = unsigned32(at: entry.valueFieldOffset).flatMap({ Int(exactly: $0) })
      else {
        faults.append("Pointer tag 0x\(String(pointer, radix: 16)) is not one LONG.")
        continue
      }
      store(self.directory(at: offset, visited: &visited), as: target, into: &table)
    }
    return table
  }

  /// One 12-byte IFD entry, with the offset of its 4-byte value field.
  struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: UInt32
    var valueFieldOffset: Int
  }

  private mutating func directory(at offset: Int, visited: inout Set<Int>) -> [Entry] {
    guard visited.count < Self.maximumDirectories, visited.insert(offset).inserted else {
      faults.append("IFD at \(offset) was already read or too many IFDs.")
      return []
    }
    guard let declared = unsigned16(at: offset) else {
      faults.append("IFD offset \(offset) is past the end of the EXIF block.")
      return []
    }
    let available = (bytes.count - offset - 2) / 12
    if Int(declared) > available {
      faults.append("IFD at \(offset) declares \(declared) entries; only \(available) fit.")
    }
    var entries: [Entry] = []
    for index in 0..<min(Int(declared), available) {
      let start = offset + 2 + index * 12
      guard let tag = unsigned16(at: start), let type = unsigned16(at: start + 2),
        let count = unsigned32(at: start + 4)
      else { break }
      entries.append(Entry(tag: tag, type: type, count: count, valueFieldOffset: start + 8))
    }
    return entries
  }

  private mutating func store(
    _ entries: [Entry], as directory: EXIFDirectory, into table: inout EXIFTagTable
  ) {
    table.entryCounts[directory] = entries.count
    for entry in entries
    where Self.decodedTags.contains(.init(directory: directory, tag: entry.tag)) {
      if let value = value(of: entry) {
        table.values[.init(directory: directory, tag: entry.tag)] = value
      } else {
        faults.append("Tag 0x\(String(entry.tag, radix: 16)) has a value outside the block.")
      }
    }
  }

  /// The tags decoded into the table: those the interpreter reads, and IFD0's image size.
  static let decodedTags = Set(EXIFTag.interpreted + EXIFTag.imageSize)

  /// The most components decoded for a numeric value; the interpreted tags need at most 3.
  static let maximumComponents = 16

  private func value(of entry: Entry) -> EXIFValue? {
    guard let unit = Self.unitLength(ofType: entry.type) else { return .other(type: entry.type) }
    guard let count = Int(exactly: entry.count) else { return nil }
    let (length, overflow) = count.multipliedReportingOverflow(by: unit)
    guard !overflow else { return nil }
    let start: Int
    if length <= 4 {
      start = entry.valueFieldOffset
    } else {
      guard let offset = unsigned32(at: entry.valueFieldOffset).flatMap({ Int(exactly: $0) })
      else { return nil }
      start = offset
    }
    let (end, endOverflow) = start.addingReportingOverflow(length)
    guard !endOverflow, start >= 0, end <= bytes.count else { return nil }
    return Self.decode(
      type: entry.type, count: count, data: bytes[start..<end], isBigEndian: isBigEndian)
  }

  /// The length in bytes of one component of a TIFF type (TIFF 6.0 §2, "Types"), or `nil`
  /// for a type TIFF 6.0 does not define.
  static func unitLength(ofType type: UInt16) -> Int? {
    switch type {
    case 1, 2, 6, 7: 1
    case 3, 8: 2
    case 4, 9, 11, 13: 4
    case 5, 10, 12: 8
    default: nil
    }
  }

  /// Decodes a value from its bytes.
  ///
  /// - Parameters:
  ///   - type: The TIFF type.
  ///   - count: The number of components the entry declares.
  ///   - data: The value's bytes; for a numeric type at least the first
  ///     ``maximumComponents`` components (components missing from `data` are left out).
  ///   - isBigEndian: The byte order.
  /// - Returns: The value; `.other` for a type that is not decoded.
  static func decode(type: UInt16, count: Int, data: ArraySlice<UInt8>, isBigEndian: Bool)
    -> EXIFValue
  {
    let numericCount = min(count, maximumComponents)
    func number(_ index: Int, _ width: Int) -> UInt32? {
      let (offset, overflow) = index.multipliedReportingOverflow(by: width)
      guard !overflow, offset >= 0, offset <= data.count - width else { return nil }
      let field = data[(data.startIndex + offset)..<(data.startIndex + offset + width)]
      let ordered = isBigEndian ? Array(field) : field.reversed()
      return ordered.reduce(0) { $0 << 8 | UInt32($1) }
    }
    switch type {
    case 1: return .byte(Array(data.prefix(numericCount)))
    case 2: return .ascii(Array(data))
    case 7: return .undefined(Array(data.prefix(EXIFValue.maximumUndefinedLength)))
    case 3:
      return .short(
        (0..<numericCount).compactMap { number($0, 2).map { UInt16(truncatingIfNeeded: $0) } })
    case 4: return .long((0..<numericCount).compactMap { number($0, 4) })
    case 5:
      return .rational(
        (0..<numericCount).compactMap { index in
          guard let numerator = number(index * 2, 4), let denominator = number(index * 2 + 1, 4)
          else { return nil }
          return EXIFRational(numerator: numerator, denominator: denominator)
        })
    case 10:
      return .signedRational(
        (0..<numericCount).compactMap { index in
          guard let numerator = number(index * 2, 4), let denominator = number(index * 2 + 1, 4)
          else { return nil }
          return EXIFSignedRational(
            numerator: Int32(bitPattern: numerator), denominator: Int32(bitPattern: denominator))
        })
    default: return .other(type: type)
    }
  }

  private func unsigned16(at offset: Int) -> UInt16? {
    guard offset >= 0, offset <= bytes.count - 2 else { return nil }
    let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
    return isBigEndian ? a << 8 | b : b << 8 | a
  }

  private func unsigned32(at offset: Int) -> UInt32? {
    guard let first = unsigned16(at: offset), let second = unsigned16(at: offset + 2) else {
      return nil
    }
    return isBigEndian
      ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
  }
}
