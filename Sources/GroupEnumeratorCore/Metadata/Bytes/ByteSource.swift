/// Random access to the bytes of one file, bounded and never trapping.
///
/// Readers get their input through this protocol so that they can be tested on byte
/// arrays and run on real files alike.
protocol ByteSource {
  /// The number of bytes available.
  var count: Int { get }

  /// Reads up to `length` bytes starting at `offset`.
  ///
  /// - Returns: Fewer bytes than asked for at the end of the source; empty past it.
  /// - Throws: An ``AssetProblem`` when the underlying read fails.
  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8]

  /// Says that the bytes in `range` will be read next (a `moov` box a reader is about
  /// to walk), so that a source that reads ahead can fetch them in one read. Changes no
  /// result; a failure shows when the bytes are read.
  func prefetch(_ range: Range<Int>)

  /// Whether the bytes of `range` are in memory already, so that reading them costs no
  /// read of the file.
  func holds(_ range: Range<Int>) -> Bool

  /// Whether the checks that a file is whole, which read its last bytes (a JPEG's
  /// end-of-image marker, a PNG's `IEND`), run on every file
  /// (``LibraryOptions/verifiesFileEnds``); otherwise they run only where those bytes are
  /// in memory already (``checksEnd(before:notBefore:)``).
  var verifiesEnds: Bool { get }
}

extension ByteSource {
  /// Does nothing: most sources answer every read as it comes.
  func prefetch(_ range: Range<Int>) {}

  /// `true`: a source that does not say otherwise is in memory (an array, a slice of one).
  func holds(_ range: Range<Int>) -> Bool { true }

  /// `false`: the end checks run where they cost no read.
  var verifiesEnds: Bool { false }

  /// Whether a check that a file is whole, looking at the bytes before `end` (none before
  /// `start`), should run: always when ``verifiesEnds``, else only when the last
  /// ``FileTail/firstLookLength`` of them are in memory already (a file read whole, or to
  /// its end anyway), so that by default the check costs no read. An end check reads
  /// more than those only when they do not settle it.
  func checksEnd(before end: Int, notBefore start: Int = 0) -> Bool {
    if verifiesEnds { return true }
    let end = min(max(0, end), count)
    let first = min(end, max(0, start, end - FileTail.firstLookLength))
    return holds(first..<end)
  }
}

/// A byte source over an in-memory array.
struct ArrayByteSource: ByteSource {
  let storage: [UInt8]

  init(_ storage: [UInt8]) { self.storage = storage }

  var count: Int { storage.count }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < storage.count else { return [] }
    let end = offset + min(length, storage.count - offset)
    return Array(storage[offset..<end])
  }
}

/// A byte source that reads the head of another source once and answers later reads
/// from memory where it can, so that a reader walking a file's structure in small steps
/// (a JPEG's marker segments, a PNG's chunks, a movie's boxes) costs few `pread` calls,
/// and a file is read no further than its metadata needs.
///
/// The first read takes a file of at most ``wholeFileLength`` bytes whole, and the first
/// ``window`` bytes of a longer one (docs/Performance.md has the distribution of what the
/// readers need, per format, and why these sizes). A read past what is held fetches what
/// it lacks in one read of the underlying source: starting at most ``followUpLength``
/// bytes after the head's end (the rest of a JPEG `APP1` that runs past the first read,
/// the segments after it), it extends the head by at least ``followUpLength`` bytes;
/// elsewhere (a box header, a PNG chunk header after `IDAT`) it takes just the bytes
/// asked for, or the rest of the file when no more than ``followUpLength`` bytes are left
/// (a small `moov` at the end), and keeps them as the one other region, which a read just
/// after or just before it extends in turn. A reader that knows what it will walk (a
/// `moov`) says so with ``prefetch(_:)`` and gets it in one read.
/// Nothing larger than ``maximumHeld`` is kept; a longer read goes through whole.
///
/// The bytes returned are always the underlying source's. When the first read fails,
/// nothing is kept and every read goes to the underlying source, which then reports the
/// failure itself; when a read of more than was asked fails or comes back short, the
/// exact read is made instead, so a failure is reported only for bytes that were asked.
final class PrefetchedByteSource<Base: ByteSource>: ByteSource {
  /// How many bytes the first read of a file longer than ``wholeFileLength`` takes: every format's
  /// sniff, all the metadata of most camera JPEGs (a camera JPEG's `APP1` header and first IFDs
  /// usually fit in 1.5 KiB), and of a JPEG with EXIF and a small XMP packet before its frame
  /// (an exiftool-written one: 6.6 KB, which took three reads with a first read of 2 KiB).
  /// Warm, each read saved is a system call; from a cold disk the two pages come with the
  /// kernel's read-ahead of the file's first read either way (docs/Performance.md).
  static var window: Int { 8 * 1024 }

  /// Files no longer than this are read whole by the first read: their end is read anyway
  /// (a JPEG's end check), and a few pages cost one read as one page does.
  static var wholeFileLength: Int { 16 * 1024 }

  /// How many bytes the first read of a source of `count` bytes takes.
  static func firstReadLength(count: Int) -> Int {
    count <= wholeFileLength ? count : window
  }

  /// The fewest bytes a read past what is held fetches.
  static var followUpLength: Int { 4 * 1024 }

  /// The most bytes kept in one region; longer reads are not kept.
  static var maximumHeld: Int { 256 * 1024 }

  private let base: Base
  let verifiesEnds: Bool
  /// The file's first bytes, from offset 0; grows while reads reach on from its end.
  private var head: [UInt8]
  /// Whether the first read failed (then nothing is kept).
  private let isPassThrough: Bool
  /// The one other region held: its bytes, from ``otherStart``.
  private var other: [UInt8] = []
  private var otherStart = 0

  /// Reads the first bytes of `base` (``firstReadLength(count:)`` of them).
  ///
  /// - Parameter verifiesEnds: Whether the end checks run on every file
  ///   (``ByteSource/verifiesEnds``).
  convenience init(_ base: Base, verifiesEnds: Bool = false) {
    let prefix = try? base.bytes(at: 0, length: Self.firstReadLength(count: base.count))
    self.init(
      base, prefix: prefix ?? [], firstReadFailed: prefix == nil, verifiesEnds: verifiesEnds)
  }

  /// Wraps `base` with its first bytes, already read (``firstReadLength(count:)`` of
  /// them): for a caller that needed them before choosing a reader.
  convenience init(_ base: Base, prefix: [UInt8], verifiesEnds: Bool = false) {
    self.init(base, prefix: prefix, firstReadFailed: false, verifiesEnds: verifiesEnds)
  }

  private init(_ base: Base, prefix: [UInt8], firstReadFailed: Bool, verifiesEnds: Bool) {
    self.base = base
    self.verifiesEnds = verifiesEnds
    // A head cut short (the file shrank after it was measured) is not trusted.
    let isWhole = prefix.count == min(base.count, Self.firstReadLength(count: base.count))
    self.head = isWhole ? prefix : []
    self.isPassThrough = firstReadFailed || !isWhole
  }

  /// The first bytes read (``firstReadLength(count:)`` of them; none when the
  /// read failed), and any that later reads added after them.
  var prefetched: [UInt8] { head }

  var count: Int { base.count }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    guard !isPassThrough else { return try base.bytes(at: offset, length: length) }
    let end = offset + min(length, count - offset)
    if let held = held(offset..<end) { return held }
    if fetch(offset..<end), let held = held(offset..<end) { return held }
    return try exact(at: offset, length: length)
  }

  func prefetch(_ range: Range<Int>) {
    let range = range.clamped(to: 0..<count)
    guard !isPassThrough, !range.isEmpty, held(range) == nil else { return }
    _ = fetch(range)
  }

  func holds(_ range: Range<Int>) -> Bool {
    let range = range.clamped(to: 0..<count)
    return range.isEmpty || (!isPassThrough && held(range) != nil)
  }

  /// The bytes of `range` when the head or the other region holds them all.
  private func held(_ range: Range<Int>) -> [UInt8]? {
    if range.upperBound <= head.count { return Array(head[range]) }
    if range.lowerBound >= otherStart, range.upperBound <= otherStart + other.count {
      return Array(other[(range.lowerBound - otherStart)..<(range.upperBound - otherStart)])
    }
    return nil
  }

  /// Fetches the bytes of `range` not held yet, in one read, with more as the type's
  /// description says, and keeps them.
  ///
  /// - Returns: Whether the whole range is now held: `false` when it is too long to keep,
  ///   or the read failed or came back short.
  private func fetch(_ range: Range<Int>) -> Bool {
    let near = Self.followUpLength
    let otherEnd = otherStart + other.count
    if range.lowerBound <= head.count + near {
      // At or just after the head's end (the rest of a JPEG `APP1`, the next segment).
      let end = min(count, max(range.upperBound, head.count + near))
      guard end <= Self.maximumHeld, let rest = read(head.count..<end) else { return false }
      head += rest
    } else if !other.isEmpty, range.lowerBound >= otherStart, range.lowerBound <= otherEnd + near {
      // At or just after the other region's end (the children of a `moov` after its header).
      let end = min(count, max(range.upperBound, otherEnd + near))
      guard end - otherStart <= Self.maximumHeld, let rest = read(otherEnd..<end) else {
        return false
      }
      other += rest
    } else if !other.isEmpty, range.lowerBound < otherStart, range.upperBound >= otherStart,
      range.upperBound <= otherEnd
    {
      // Just before the other region (the rest of a file's last bytes, read in two steps).
      guard otherEnd - range.lowerBound <= Self.maximumHeld,
        let before = read(range.lowerBound..<otherStart)
      else { return false }
      other = before + other
      otherStart = range.lowerBound
    } else {
      // Elsewhere: what was asked (a PNG chunk header after `IDAT`, a box header), or,
      // when little is left, the rest of the file and at least its last
      // ``FileTail/firstLookLength`` bytes (a small `moov`, the bytes an end check reads).
      let isNearTheEnd = count - range.lowerBound <= near
      let start =
        isNearTheEnd
        ? min(range.lowerBound, max(head.count, count - FileTail.firstLookLength))
        : range.lowerBound
      let end = isNearTheEnd ? count : range.upperBound
      guard end - start <= Self.maximumHeld, let fetched = read(start..<end) else {
        return false
      }
      other = fetched
      otherStart = start
    }
    return true
  }

  /// The bytes of `range` from the underlying source, or `nil` when the read fails or
  /// comes back short.
  private func read(_ range: Range<Int>) -> [UInt8]? {
    guard let bytes = try? base.bytes(at: range.lowerBound, length: range.count),
      bytes.count == range.count
    else { return nil }
    return bytes
  }

  /// Reads exactly what was asked for from the underlying source, combining it with the
  /// head's bytes where they overlap: for reads not kept, and after a wider read failed.
  private func exact(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset < head.count else { return try base.bytes(at: offset, length: length) }
    let rest = try base.bytes(at: head.count, length: length - (head.count - offset))
    return Array(head[offset...]) + rest
  }
}
