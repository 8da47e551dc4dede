import FoundationEssentials

/// The text of strings and identifiers: JSON's escapes, and UUIDs in hex.
extension JSONWriter {
  /// `text` as a JSON string: quotes and backslashes escaped, control characters (C0,
  /// DEL and C1) as `\n`, `\t`… or `\u00XX`; everything else, non-ASCII included, kept
  /// as is.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func quoted(_ text: String) -> String {
    var text = text
    let result = ByteBuffer(capacity: text.utf8.count + 2)
    text.withUTF8 { appendQuoted($0, to: result) }
    return result.withBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// Appends ``quoted(_:)`` of the UTF-8 text `utf8` to `result`; text with nothing to
  /// escape (the usual case) is appended whole.
  ///
  /// - Complexity: O(*n*) in the length of `utf8`.
  static func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to result: ByteBuffer) {
    result.append(UInt8(ascii: "\""))
    appendEscaped(utf8, to: result)
    result.append(UInt8(ascii: "\""))
  }

  /// Appends the UTF-8 text `utf8` with JSON's escapes.
  ///
  /// In UTF-8 the bytes below 0x80 only ever stand for themselves (multi-byte sequences
  /// use bytes from 0x80 up), so escaping byte by byte escapes exactly the scalars JSON
  /// requires and copies every other sequence unchanged.
  private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to result: ByteBuffer) {
    let mayNeedEscape = JSONWriter.mayNeedEscape
    var plainStart = 0
    var index = 0
    while index < utf8.count {
      let byte = utf8[index]
      // Most bytes need nothing: one table look-up tells.
      guard mayNeedEscape[Int(byte)] else {
        index += 1
        continue
      }
      // DEL and the C1 controls (U+0080–U+009F, `C2 80`…`C2 9F` in UTF-8) are valid in
      // JSON strings but act on terminals, so they are written as `\u007f`…`\u009f`.
      if byte == 0x7F || (byte == 0xC2 && index + 1 < utf8.count && utf8[index + 1] & 0xE0 == 0x80)
      {
        let scalar = byte == 0x7F ? byte : utf8[index + 1]
        result.append(UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
        index += byte == 0x7F ? 1 : 2
        plainStart = index
        result.append("\\u00")
        result.append(hexDigits[Int(scalar >> 4)])
        result.append(hexDigits[Int(scalar & 0x0F)])
        continue
      }
      index += 1
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
        continue
      }
      result.append(UnsafeBufferPointer(rebasing: utf8[plainStart..<(index - 1)]))
      plainStart = index
      result.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): result.append(byte)
      case UInt8(ascii: "\n"): result.append(UInt8(ascii: "n"))
      case UInt8(ascii: "\r"): result.append(UInt8(ascii: "r"))
      case UInt8(ascii: "\t"): result.append(UInt8(ascii: "t"))
      case 0x08: result.append(UInt8(ascii: "b"))
      case 0x0C: result.append(UInt8(ascii: "f"))
      default:
        result.append("u00")
        result.append(hexDigits[Int(byte >> 4)])
        result.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    result.append(UnsafeBufferPointer(rebasing: utf8[plainStart...]))
  }

  /// Appends `uuid` as upper-case hex in groups of 8, 4, 4, 4 and 12 digits.
  ///
  /// The 36 bytes are written in one reserved run (two per asset in a listing).
  static func appendUUID(_ uuid: UUID, to result: ByteBuffer) {
    withUnsafeBytes(of: uuid.uuid) { raw in
      result.append(atMost: 36) { out in
        var end = 0
        for index in 0..<16 {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            out[end] = UInt8(ascii: "-")
            end += 1
          }
          let byte = raw[index]
          out[end] = upperHexDigit(byte >> 4)
          out[end + 1] = upperHexDigit(byte & 0x0F)
          end += 2
        }
        return end
      }
    }
  }

  /// The upper-case hex digit of `value` (0–15).
  private static func upperHexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + (value - 10)
  }

  /// Whether a byte is one ``appendEscaped(_:to:)`` may have to escape: a C0 control,
  /// `"`, `\\`, DEL, or `C2` (the lead byte of the C1 controls, and of other scalars).
  private static let mayNeedEscape: [Bool] = (0...255).map { byte in
    byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xC2
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)
}
