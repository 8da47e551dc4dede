/// A four-character code naming a box type (`moov`, `mvhd`, `©xyz`…), stored as the
/// big-endian 32-bit integer it is in the file.
///
/// The ISO base media file format calls these units boxes, QuickTime calls them atoms; both
/// name each one's type with four bytes, most often printable ASCII.
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
  /// `ftyp`: the file type box, a brand and the brands the file is compatible with.
  static let fileType = FourCharacterCode(0x66, 0x74, 0x79, 0x70)
  /// `uuid`: a box whose type is the 16-byte extended type that
  /// follows its header.
  static let uuid = FourCharacterCode(0x75, 0x75, 0x69, 0x64)
  /// `moov`: the movie box, the container of a movie's headers and tracks.
  static let movie = FourCharacterCode(0x6D, 0x6F, 0x6F, 0x76)
  /// `meta`: a metadata box, whose handler says what it holds.
  static let metadata = FourCharacterCode(0x6D, 0x65, 0x74, 0x61)
  /// `hdlr`: the handler box, the kind of a track or `meta` box.
  static let handler = FourCharacterCode(0x68, 0x64, 0x6C, 0x72)
  /// `mdat`: the media data box, the samples themselves.
  static let mediaData = FourCharacterCode(0x6D, 0x64, 0x61, 0x74)
}
