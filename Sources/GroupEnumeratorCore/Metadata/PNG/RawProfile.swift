/// ImageMagick's hex-encoded "raw profile" text, as found in PNG text chunks whose keyword
/// is `Raw profile type exif` (or `APP1`, `iptc`, `xmp`…).
///
/// The text is a newline, the profile's name, a newline, a decimal byte count (padded on
/// the left with spaces, sometimes zeros), a newline, then the bytes as hex digits broken
/// into lines. Decoding is strict: the name is letters and digits, the count has at most
/// 10 digits and may not exceed the caller's limit, and exactly that many bytes must
/// follow as hex digits with only whitespace between them. After those bytes only
/// whitespace is expected; anything else is reported in ``trailingBytes`` and ignored,
/// as ImageMagick (which reads exactly the declared count) and ExifTool (which warns
/// "wrong size") do.
struct RawProfile: Equatable {
  /// The profile's name from the text (`exif`, `APP1`…), as written.
  var name: String
  /// The decoded bytes: exactly the declared count.
  var bytes: [UInt8]
  /// How many non-whitespace bytes followed the declared data and were ignored.
  var trailingBytes: Int

  /// Why a raw profile could not be decoded.
  enum Failure: Error, Equatable {
    /// The lines before the hex data are not newline, name, newline, count, newline.
    case badHeader
    /// The declared count is over the limit.
    case tooLarge(declared: Int, limit: Int)
    /// A byte that is neither a hex digit nor whitespace, at this index in the text.
    case badCharacter(at: Int)
    /// Fewer hex digits than the declared count needs.
    case tooShort(declared: Int, found: Int)
  }

  /// Decodes `text`, the whole text of a raw profile chunk.
  ///
  /// - Parameter limit: The largest declared count accepted.
  init(decoding text: [UInt8], limit: Int) throws(Failure) {
    // Newline, name, newline (CR LF is accepted for each newline of the header).
    guard var index = Self.afterNewline(in: text, at: 0) else { throw .badHeader }
    let nameStart = index
    while index < text.count, index - nameStart < 64, Self.isNameCharacter(text[index]) {
      index += 1
    }
    name = String(decoding: text[nameStart..<index], as: Unicode.ASCII.self)
    guard index > nameStart, let afterName = Self.afterNewline(in: text, at: index) else {
      throw .badHeader
    }
    index = afterName
    // Spaces, the decimal count, newline.
    while index < text.count, text[index] == Self.space { index += 1 }
    let digitsStart = index
    var declared = 0
    while index < text.count, index - digitsStart < 10, let digit = Self.decimal(text[index]) {
      declared = declared * 10 + digit
      index += 1
    }
    guard index > digitsStart, let afterCount = Self.afterNewline(in: text, at: index) else {
      throw .badHeader
    }
    index = afterCount
    guard declared <= limit else { throw .tooLarge(declared: declared, limit: limit) }
    // Exactly `declared` bytes of hex, whitespace allowed between digits.
    var bytes = [UInt8]()
    bytes.reserveCapacity(declared)
    var high: UInt8?
    while bytes.count < declared, index < text.count {
      let character = text[index]
      if let nibble = Self.hexValue(character) {
        if let first = high {
          bytes.append(first << 4 | nibble)
          high = nil
        } else {
          high = nibble
        }
      } else if !Self.isWhitespace(character) {
        throw .badCharacter(at: index)
      }
      index += 1
    }
    guard bytes.count == declared else {
      throw .tooShort(declared: declared, found: bytes.count * 2 + (high == nil ? 0 : 1))
    }
    self.bytes = bytes
    trailingBytes = text[index...].filter { !Self.isWhitespace($0) && $0 != 0 }.count
  }

  private static let newline = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")

  /// The index after the `\n` or `\r\n` at `index`, or `nil` when there is none.
  private static func afterNewline(in text: [UInt8], at index: Int) -> Int? {
    guard index < text.count else { return nil }
    if text[index] == newline { return index + 1 }
    guard text[index] == carriageReturn, index + 1 < text.count, text[index + 1] == newline
    else { return nil }
    return index + 2
  }
  private static let space = UInt8(ascii: " ")

  private static func isNameCharacter(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  private static func decimal(_ byte: UInt8) -> Int? {
    (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }
}
