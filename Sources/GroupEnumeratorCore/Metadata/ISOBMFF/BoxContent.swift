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

  /// A full box's version: the first content byte (followed by 24 bits of flags).
  func version() throws(BoxParsingError) -> UInt8 { try uint8(at: 0) }

  /// The version of a ``TwoVersionFullBox``, checked: 0 or 1, with that version's fixed
  /// layout loaded.
  ///
  /// - Throws: ``BoxParsingError/unsupportedVersion(type:offset:version:)`` for versions
  ///   other than 0 and 1; ``BoxParsingError/contentTooShort(type:offset:needed:available:)``
  ///   when the content is shorter than its version's fixed layout.
  func version<Box: TwoVersionFullBox>(of _: Box.Type) throws(BoxParsingError) -> UInt8 {
    let version = try version()
    guard version <= 1 else {
      throw .unsupportedVersion(type: header.type, offset: header.offset, version: version)
    }
    try require(Box.requiredLength(version: version))
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
