import FoundationEssentials

/// Name-based identifiers that stay the same across runs for the same relative path.
enum StableIdentifier {
  /// A version-8 (custom) UUID made from a 128-bit FNV-1a hash of `namespace`, a zero
  /// byte, and the path's bytes.
  ///
  /// - Complexity: O(*n*) in the path's length.
  static func uuid(namespace: String, path: LibraryPath) -> UUID {
    var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
    let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
    func mix(_ byte: UInt8) {
      hash ^= UInt128(byte)
      hash &*= prime
    }
    for byte in namespace.utf8 { mix(byte) }
    mix(0)
    for byte in path.bytes { mix(byte) }
    // Big-endian bytes of the hash, then the version (8) and variant (10) bits.
    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &uuid) { bytes in
      for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: hash >> (8 * (15 - index))) }
      bytes[6] = (bytes[6] & 0x0F) | 0x80
      bytes[8] = (bytes[8] & 0x3F) | 0x80
    }
    return UUID(uuid: uuid)
  }

  /// `uuid.uuidString` (upper-case hex, 8-4-4-4-12), made without `snprintf`.
  static func text(of uuid: UUID) -> String {
    withUnsafeBytes(of: uuid.uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { text in
        let digits = Array("0123456789ABCDEF".utf8)
        var count = 0
        for (index, byte) in bytes.enumerated() {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            text[count] = UInt8(ascii: "-")
            count += 1
          }
          text[count] = digits[Int(byte >> 4)]
          text[count + 1] = digits[Int(byte & 0x0F)]
          count += 2
        }
        return count
      }
    }
  }
}
