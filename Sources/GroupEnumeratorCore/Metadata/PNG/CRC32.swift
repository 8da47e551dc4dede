internal import CZlib

/// The CRC-32 that PNG chunks carry over their type and data (the same CRC as zlib's and
/// gzip's), computed by zlib's `crc32`.
enum CRC32 {
  /// The CRC of `parts` taken one after the other.
  static func checksum(_ parts: [UInt8]...) -> UInt32 {
    var crc = crc32(0, nil, 0)
    for part in parts {
      crc = part.withUnsafeBufferPointer { buffer in
        crc32(crc, buffer.baseAddress, uInt(clamping: buffer.count))
      }
    }
    return UInt32(truncatingIfNeeded: crc)
  }
}
