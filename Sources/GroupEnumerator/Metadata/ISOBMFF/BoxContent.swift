/// The content bytes of one box (or a prefix of them), with field reads that throw a
/// ``BoxParsingError`` naming the box instead of trapping.
struct BoxContent: Sendable {
  /// The box these bytes belong to.
  let header: BoxHeader
  /// The content, from just after the header; possibly only a prefix of it.
  let bytes: [UInt8]

  /// Creates content for a box.
  init(header: BoxHeader, bytes: [UInt8]) {
    self.header = header
    self.bytes = bytes
  }

  /// The number of bytes loaded.
  var count: Int { bytes.count }

  /// Throws unless at least `length` bytes are loaded.
  func require(_ length: Int) throws(BoxParsingError) {
    guard bytes.count >= length else { throw tooShort(needing: length) }
  }

  /// The unsigned big-endian integer of `width` bytes at `offset`.
  func unsigned(at offset: Int, width: Int) throws(BoxParsingError) -> UInt64 {
    guard let value = IntegerReader.bigEndian.unsigned(bytes, at: offset, width: width) else {
      throw tooShort(needing: offset.addingReportingOverflow(width).partialValue)
    }
    return value
  }

  /// The byte at `offset`.
  func uint8(at offset: Int) throws(BoxParsingError) -> UInt8 {
    UInt8(truncatingIfNeeded: try unsigned(at: offset, width: 1))
  }

  /// The 16-bit value at `offset`.
  func uint16(at offset: Int) throws(BoxParsingError) -> UInt16 {
    UInt16(truncatingIfNeeded: try unsigned(at: offset, width: 2))
  }

  /// The 32-bit value at `offset`.
  func uint32(at offset: Int) throws(BoxParsingError) -> UInt32 {
    UInt32(truncatingIfNeeded: try unsigned(at: offset, width: 4))
  }

  /// The signed 32-bit value at `offset` (two's complement).
  func int32(at offset: Int) throws(BoxParsingError) -> Int32 {
    Int32(bitPattern: try uint32(at: offset))
  }

  /// The 64-bit value at `offset`.
  func uint64(at offset: Int) throws(BoxParsingError) -> UInt64 {
    try unsigned(at: offset, width: 8)
  }

  /// The four-character code at `offset`.
  func fourCharacterCode(at offset: Int) throws(BoxParsingError) -> FourCharacterCode {
    FourCharacterCode(rawValue: try uint32(at: offset))
  }

  /// `length` bytes from `offset`.
  func slice(at offset: Int, length: Int) throws(BoxParsingError) -> [UInt8] {
    guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
      throw tooShort(needing: offset.addingReportingOverflow(length).partialValue)
    }
    return Array(bytes[offset..<(offset + length)])
  }

  /// A full box's version: the first content byte (ISO/IEC 14496-12 §4.2, `FullBox`).
  func version() throws(BoxParsingError) -> UInt8 { try uint8(at: 0) }

  /// A full box's version, checked: at most `latest`, with the fixed layout that version
  /// needs loaded.
  ///
  /// - Parameters:
  ///   - latest: The highest version the box type defines.
  ///   - requiredLength: The content length a version's fixed fields take.
  /// - Throws: ``BoxParsingError/unsupportedVersion(type:offset:version:)`` for a later
  ///   version; ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the content is shorter than the version's layout.
  func version(upTo latest: UInt8, requiredLength: (UInt8) -> Int) throws(BoxParsingError)
    -> UInt8
  {
    let version = try version()
    guard version <= latest else {
      throw .unsupportedVersion(type: header.type, offset: header.offset, version: version)
    }
    try require(requiredLength(version))
    return version
  }

  /// An error describing a field that runs past the content.
  func tooShort(needing needed: Int) -> BoxParsingError {
    .contentTooShort(
      type: header.type, offset: header.offset, needed: needed, available: bytes.count)
  }

  /// An error describing an invalid field of this box.
  func invalid(_ field: String, _ detail: String) -> BoxParsingError {
    .invalidField(type: header.type, offset: header.offset, field: field, detail: detail)
  }
}
