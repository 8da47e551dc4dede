internal import FoundationEssentials
internal import Glibc

/// Searches bytes for a short pattern: the C library's `memchr` finds each candidate
/// first byte (many bytes a step), `memcmp` compares the rest there, so a search of a
/// few kilobytes costs a fraction of a byte-by-byte loop in Swift.
enum ByteSearch {
  /// Whether `pattern` occurs anywhere in `bytes` (an empty pattern never does).
  ///
  /// - Complexity: O(*n* · *m*) at worst for *n* bytes and a pattern of *m*; about *n*
  ///   when the pattern's first byte is rare.
  static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
    guard let first = pattern.first, bytes.count >= pattern.count else { return false }
    return bytes.withUnsafeBytes { haystack in
      pattern.withUnsafeBytes { needle in
        guard let start = haystack.baseAddress, let rest = needle.baseAddress else {
          return false
        }
        // The last offset at which the whole pattern still fits.
        let last = haystack.count - needle.count
        var offset = 0
        while offset <= last {
          guard let found = memchr(start + offset, Int32(first), last - offset + 1) else {
            return false
          }
          offset = start.distance(to: UnsafeRawPointer(found))
          if memcmp(start + offset, rest, needle.count) == 0 { return true }
          offset += 1
        }
        return false
      }
    }
  }

  /// Whether any of `patterns` occurs in `bytes`.
  static func containsAny(_ bytes: [UInt8], _ patterns: [[UInt8]]) -> Bool {
    patterns.contains { contains(bytes, $0) }
  }
}
