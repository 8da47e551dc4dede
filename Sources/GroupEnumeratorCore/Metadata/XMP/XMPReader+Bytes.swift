/// The scanner's byte-level steps: blanks, names, characters, and XML's character classes
/// (``XMPReader``).
extension XMLScanner {
  /// Skips blanks (space, tab, CR, LF); whether there was any.
  @discardableResult
  mutating func skipSpaces() -> Bool {
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      guard Self.isSpace(byte) else { break }
      index += 1
    }
    return index > start
  }

  func starts(with literal: StaticString) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard bytes.count - index >= length else { return false }
    return literal.withUTF8Buffer { buffer in
      for offset in 0..<length where bytes[index + offset] != buffer[offset] { return false }
      return true
    }
  }

  /// A name at `index` (XML 1.0 fifth edition `Name`, colons included), or `nil` with
  /// `index` unchanged when none starts there.
  mutating func readName() -> Range<Int>? {
    let start = index
    guard let (first, firstLength) = scalar(at: index), Self.isNameStart(first) else {
      return nil
    }
    index += firstLength
    while let (next, length) = scalar(at: index), Self.isNameStart(next) || Self.isNamePart(next) {
      index += length
    }
    return start..<index
  }

  /// Copies the character at `index` into `target`, refusing one XML does not allow.
  mutating func copyCharacter(into target: Buffer) throws(XMLFault) {
    let start = index
    try skipCharacter()
    append(contentsOf: bytes[start..<index], to: target)
  }

  /// The two buffers text is decoded into.
  enum Buffer {
    case text
    case values
  }

  mutating func append(_ byte: UInt8, to target: Buffer) {
    switch target {
    case .text: text.append(byte)
    case .values: values.append(byte)
    }
  }

  mutating func append(contentsOf bytes: some Sequence<UInt8>, to target: Buffer) {
    switch target {
    case .text: text.append(contentsOf: bytes)
    case .values: values.append(contentsOf: bytes)
    }
  }

  /// Steps over the character at `index`, refusing one XML does not allow.
  mutating func skipCharacter() throws(XMLFault) {
    let byte = bytes[index]
    if byte >= 0x20, byte < 0x80 {
      index += 1
      return
    }
    guard let (value, length) = scalar(at: index), Self.isCharacter(value) else {
      throw .atEnd
    }
    index += length
  }

  /// The scalar whose UTF-8 encoding starts at `position` (the text is valid UTF-8), and
  /// its length; `nil` at the end.
  func scalar(at position: Int) -> (UInt32, Int)? {
    guard position < bytes.count else { return nil }
    let lead = UInt32(bytes[position])
    let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    guard length > 1 else { return (lead, 1) }
    guard position + length <= bytes.count else { return nil }
    var value = lead & (0xFF >> (length + 1))
    for offset in 1..<length { value = value << 6 | UInt32(bytes[position + offset] & 0x3F) }
    return (value, length)
  }

  /// An ASCII byte that stands for itself in character data.
  static func isPlainText(_ byte: UInt8) -> Bool {
    (byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "&")
      && byte != UInt8(ascii: "]")) || byte == 0x0A || byte == 0x09
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
  }

  static func isCharacter(_ value: UInt32) -> Bool {
    switch value {
    case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF: true
    default: false
    }
  }

  static func isNameStart(_ value: UInt32) -> Bool {
    switch value {
    case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF,
      0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF,
      0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x1_0000...0xE_FFFF:
      true
    default: false
    }
  }

  static func isNamePart(_ value: UInt32) -> Bool {
    switch value {
    case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true
    default: false
    }
  }

  static func digit(_ byte: UInt8, radix: UInt32) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
      UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
      UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }
}
