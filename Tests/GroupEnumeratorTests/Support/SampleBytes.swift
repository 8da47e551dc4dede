import Foundation

/// Test content: real leading bytes of each format, padded.
enum SampleBytes {
  static let jpeg = hexBytes("ffd8ffe0 00104a46 49460001 01000001 00010000 ffd9")
  static let png = hexBytes("89504e47 0d0a1a0a 0000000d 49484452 00000001 00000001 0802000000")
  static let quickTime = hexBytes(
    "00000014 66747970 71742020 00000000 71742020 00000008 77696465 00000008 6d646174")
  static let mp4 = hexBytes(
    "0000001c 66747970 6d703432 00000000 6d703432 69736f6d 61766331 00000008 66726565")

  /// Bytes that are no known format (deterministic, not starting with any magic).
  static func noise(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    return [0x5A, 0x5A]
      + (0..<max(0, count - 2)).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
      }
  }
}
