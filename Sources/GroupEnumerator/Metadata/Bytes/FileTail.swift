/// The last bytes of a file, or of the part of it that ends at a given offset, read at
/// once: what the checks that a file is whole look at (a JPEG's end-of-image marker, a
/// PNG's `IEND`).
///
/// One read of at most ``maximumLength`` bytes; a file no longer than the prefetch window
/// (``PrefetchedByteSource``) is answered from memory.
struct FileTail {
  /// The most bytes read: enough to reach past the trailers cameras and editors append
  /// after the image (the shared corpus's longest is 39,345 bytes).
  static let maximumLength = 64 * 1024

  /// Where ``bytes`` start in the file.
  let offset: Int
  /// The bytes read.
  let bytes: [UInt8]

  /// Reads the bytes before `end` (the end of the file when `nil`), at most `length`
  /// of them and none before `start`.
  ///
  /// - Throws: An ``AssetProblem`` when the read fails.
  init(
    of source: some ByteSource, end: Int? = nil, notBefore start: Int = 0,
    length: Int = maximumLength
  ) throws(AssetProblem) {
    let end = min(end ?? source.count, source.count)
    let first = max(0, start, end - min(length, Self.maximumLength))
    offset = first
    bytes = first < end ? try source.bytes(at: first, length: end - first) : []
  }

  /// Whether ``bytes`` are all zero and at least ``minimumPadding`` long: padding, or a
  /// region that was allocated and never written; either way nothing tells where the
  /// content ended. (A few zeros are no such sign: a file cut inside a header often ends
  /// in some.)
  var isZeroFilled: Bool { bytes.count >= Self.minimumPadding && bytes.allSatisfy { $0 == 0 } }

  /// The fewest zero bytes taken as padding.
  static let minimumPadding = 64

  /// Whether ``bytes`` hold `pattern` anywhere.
  func contains(_ pattern: [UInt8]) -> Bool {
    guard let head = pattern.first, bytes.count >= pattern.count else { return false }
    var index = bytes.count - pattern.count
    while index >= 0 {
      if bytes[index] == head, bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
        return true
      }
      index -= 1
    }
    return false
  }

  /// Whether ``bytes`` end with `pattern`.
  func ends(with pattern: [UInt8]) -> Bool {
    bytes.count >= pattern.count && bytes.suffix(pattern.count).elementsEqual(pattern)
  }
}
