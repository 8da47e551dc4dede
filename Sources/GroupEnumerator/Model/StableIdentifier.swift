import Foundation

/// Name-based identifiers that stay the same across runs for the same relative path.
enum StableIdentifier {
  /// A version-8 (custom) UUID made from a 128-bit FNV-1a hash of `namespace`, a zero
  /// byte, and the path's bytes.
  ///
  /// - Complexity: O(*n*) in the path's length.
  static func uuid(namespace: String, path: LibraryPath) -> UUID {
    var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
    let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
    for byte in Array(namespace.utf8) + [0] + path.bytes {
      hash ^= UInt128(byte)
      hash &*= prime
    }
    var bytes = (0..<16).map { UInt8(truncatingIfNeeded: hash >> (8 * (15 - $0))) }
    bytes[6] = (bytes[6] & 0x0F) | 0x80
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}
