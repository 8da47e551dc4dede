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

  /// Reads IFD0 and its EXIF and GPS sub-IFDs, decoding the tags in ``EXIFTag/interpreted``.
  ///
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read() -> EXIFTagTable {
    var table = EXIFTagTable()
    var visited: Set<Int> = []
    guard let ifd0 = unsigned32(at: 4).flatMap({ Int(exactly: $0) }) else { return table }
    let ifd0Entries = directory(at: ifd0, visited: &visited)
    store(ifd0Entries, as: .ifd0, into: &table)
    for (pointer, target) in [
      (EXIFTag.exifIFDPointer, EXIFDirectory.exif), (EXIFTag.gpsInfoIFDPointer, .gps),
    ] {
      guard let entry = ifd0Entries.first(where: { $0.tag == pointer }) else { continue }
      guard entry.count == 1, entry.type == 4 || entry.type == 13,
        let offset = unsigned32(at: entry.valueFieldOffset).flatMap({ Int(exactly: $0) })
      else {
        faults.append("Pointer tag 0x\(String(pointer, radix: 16)) is not one LONG.")
        continue
      }
      store(directory(at: offset, visited: &visited), as: target, into: &table)
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
    where EXIFTag.interpreted.contains(.init(directory: directory, tag: entry.tag)) {
      if let value = value(of: entry) {
        table.values[.init(directory: directory, tag: entry.tag)] = value
      } else {
        faults.append("Tag 0x\(String(entry.tag, radix: 16)) has a value outside the block.")
      }
    }
  }

  /// The most components decoded for a numeric value; the interpreted tags need at most 3.
  private static let maximumComponents = 16

  private func value(of entry: Entry) -> EXIFValue? {
    let unit: Int
    switch entry.type {
    case 1, 2, 6, 7: unit = 1
    case 3, 8: unit = 2
    case 4, 9, 11, 13: unit = 4
    case 5, 10, 12: unit = 8
    default: return .other(type: entry.type)
    }
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
    let numericCount = min(count, Self.maximumComponents)
    switch entry.type {
    case 1: return .byte(Array(bytes[start..<(start + numericCount)]))
    case 2: return .ascii(Array(bytes[start..<end]))
    case 7:
      return .undefined(Array(bytes[start..<min(end, start + EXIFValue.maximumUndefinedLength)]))
    case 3: return .short((0..<numericCount).compactMap { unsigned16(at: start + $0 * 2) })
    case 4: return .long((0..<numericCount).compactMap { unsigned32(at: start + $0 * 4) })
    case 5:
      return .rational(
        (0..<numericCount).compactMap { index in
          guard let numerator = unsigned32(at: start + index * 8),
            let denominator = unsigned32(at: start + index * 8 + 4)
          else { return nil }
          return EXIFRational(numerator: numerator, denominator: denominator)
        })
    case 10:
      return .signedRational(
        (0..<numericCount).compactMap { index in
          guard let numerator = unsigned32(at: start + index * 8),
            let denominator = unsigned32(at: start + index * 8 + 4)
          else { return nil }
          return EXIFSignedRational(
            numerator: Int32(bitPattern: numerator), denominator: Int32(bitPattern: denominator))
        })
    default: return .other(type: entry.type)
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
