/// A four-character code naming a box type (`moov`, `mvhd`, `©xyz`…), stored as the
/// big-endian 32-bit integer it is in the file.
///
/// ISO/IEC 14496-12 §4.2 ("Object structure"); Apple, *QuickTime File Format*, "Atoms".
struct FourCharacterCode: Hashable, Sendable, CustomStringConvertible {
  /// The code as a big-endian integer: `moov` is `0x6D6F_6F76`.
  let rawValue: UInt32

  /// Creates a code from its big-endian integer value.
  init(rawValue: UInt32) { self.rawValue = rawValue }

  /// Creates a code from four bytes, first byte most significant.
  init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
    rawValue = IntegerReader.bigEndian.uint32([a, b, c, d], at: 0) ?? 0
  }

  /// The four bytes, first byte first.
  var bytes: [UInt8] {
    withUnsafeBytes(of: rawValue.bigEndian) { Array($0) }
  }

  /// The code as printable text: `moov`, `©xyz` (byte 0xA9 is Mac Roman `©`), and
  /// `0x00000001` for codes that are not printable (such as `ilst` item indexes).
  var description: String {
    var text = ""
    for byte in bytes {
      switch byte {
      case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
      case 0xA9: text += "©"
      default:
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
      }
    }
    return text
  }
}

extension FourCharacterCode {
  /// `ftyp`, ISO/IEC 14496-12 §4.3.
  static let fileType = FourCharacterCode(0x66, 0x74, 0x79, 0x70)
  /// `uuid`, ISO/IEC 14496-12 §4.2: a box whose type is the 16-byte extended type that
  /// follows its header.
  static let uuid = FourCharacterCode(0x75, 0x75, 0x69, 0x64)
  /// `moov`, ISO/IEC 14496-12 §8.2.1.
  static let movie = FourCharacterCode(0x6D, 0x6F, 0x6F, 0x76)
  /// `meta`, ISO/IEC 14496-12 §8.11.1.
  static let metadata = FourCharacterCode(0x6D, 0x65, 0x74, 0x61)
  /// `hdlr`, ISO/IEC 14496-12 §8.4.3.
  static let handler = FourCharacterCode(0x68, 0x64, 0x6C, 0x72)
  /// `mdat`, ISO/IEC 14496-12 §8.1.1.
  static let mediaData = FourCharacterCode(0x6D, 0x64, 0x61, 0x74)
}
