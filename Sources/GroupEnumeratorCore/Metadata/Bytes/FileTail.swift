/// The last bytes of a file, or of the part of it that ends at a given offset, read at
/// once: what the checks that a file is whole look at (a JPEG's end-of-image marker, a
/// PNG's `IEND`).
///
/// One read of at most ``maximumLength`` bytes (answered from memory where the file's
/// ``PrefetchedByteSource`` holds them); a check that usually needs only the last few
/// bytes reads those first and the rest only when they do not settle it
/// (``joined(with:)``).
struct FileTail {
  /// The most bytes read: enough to reach past the trailers cameras and editors append
  /// after the image (docs/Formats.md lists the longest seen).
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

  /// The bytes before `end` (the end of the file when `nil`), at most `length` of them
  /// and none before `start`, read in two steps when `pattern` is in the last
  /// ``firstLookLength`` of them: a check that only asks whether a short pattern is there
  /// (an end marker, which most files end with) usually needs one small read, and gets
  /// the same answer, and the same bytes, as from one read of the whole span otherwise.
  ///
  /// - Returns: The last ``firstLookLength`` bytes when they hold `pattern`; else the
  ///   whole span.
  /// - Throws: An ``AssetProblem`` when a read fails.
  init(
    of source: some ByteSource, end: Int? = nil, notBefore start: Int = 0,
    length: Int = maximumLength, lookingFor pattern: [UInt8]
  ) throws(AssetProblem) {
    let length = min(length, Self.maximumLength)
    let last = try FileTail(
      of: source, end: end, notBefore: start, length: min(length, Self.firstLookLength))
    guard length > Self.firstLookLength, !last.contains(pattern) else {
      self = last
      return
    }
    // The pattern may straddle the two reads: the first ends inside the last one.
    let overlap = min(max(0, pattern.count - 1), last.bytes.count)
    let before = try FileTail(
      of: source, end: last.offset + overlap, notBefore: start,
      length: length - last.bytes.count + overlap)
    self = before.joined(with: last)
  }

  /// How many of the last bytes ``init(of:end:notBefore:length:lookingFor:)`` reads
  /// first.
  static let firstLookLength = 512

  private init(offset: Int, bytes: [UInt8]) {
    self.offset = offset
    self.bytes = bytes
  }

  /// These bytes followed by those of `later`, which starts inside or right after them
  /// (the bytes both hold are taken once): a tail read in two steps, as if in one.
  func joined(with later: FileTail) -> FileTail {
    let overlap = min(max(0, offset + bytes.count - later.offset), later.bytes.count)
    guard later.offset >= offset else { return later }
    return FileTail(offset: offset, bytes: bytes + later.bytes.dropFirst(overlap))
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
