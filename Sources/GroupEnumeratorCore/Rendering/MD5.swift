import FoundationEssentials
import Glibc

/// The MD5 message digest, which names the entries of the freedesktop.org
/// thumbnail cache after their file's URI.
///
/// Only a name: MD5 is broken as a cryptographic hash, and nothing here relies on it
/// being one. An entry found under a name is trusted only when the URI it records is the
/// file's own (``PictureCache``), so a collision costs a redraw, never a wrong picture.
enum MD5 {
  /// The per-round left-rotation amounts.
  private static let shifts: [UInt32] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
  ]

  /// The additive constants: the integer part of 2^32 × |sin(i + 1)|.
  private static let constants: [UInt32] = (0..<64).map { index in
    UInt32(truncatingIfNeeded: Int64((abs(sin(Double(index + 1))) * 4_294_967_296).rounded(.down)))
  }

  /// The 16-byte digest of `message`.
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var state: (UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476
    )
    // Padding: a one bit, zeros to 56 bytes modulo 64, the bit length (little-endian).
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bitLength = UInt64(truncatingIfNeeded: message.count) &* 8
    for shift in stride(from: 0, to: 64, by: 8) {
      padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    var words = [UInt32](repeating: 0, count: 16)
    for block in stride(from: 0, to: padded.count, by: 64) {
      for index in 0..<16 {
        let at = block + index * 4
        words[index] =
          UInt32(padded[at]) | UInt32(padded[at + 1]) << 8 | UInt32(padded[at + 2]) << 16
          | UInt32(padded[at + 3]) << 24
      }
      var (a, b, c, d) = state
      for round in 0..<64 {
        let mixed: UInt32
        let word: Int
        switch round {
        case 0..<16:
          mixed = (b & c) | (~b & d)
          word = round
        case 16..<32:
          mixed = (d & b) | (~d & c)
          word = (5 * round + 1) % 16
        case 32..<48:
          mixed = b ^ c ^ d
          word = (3 * round + 5) % 16
        default:
          mixed = c ^ (b | ~d)
          word = (7 * round) % 16
        }
        let sum = a &+ mixed &+ constants[round] &+ words[word]
        let shift = shifts[round]
        (a, d, c) = (d, c, b)
        b = b &+ (sum << shift | sum >> (32 - shift))
      }
      state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
    var result: [UInt8] = []
    result.reserveCapacity(16)
    for value in [state.0, state.1, state.2, state.3] {
      for shift in stride(from: 0, to: 32, by: 8) {
        result.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
      }
    }
    return result
  }

  /// The digest of `message` in lowercase hexadecimal, 32 characters.
  static func hex(_ message: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in digest(message) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
