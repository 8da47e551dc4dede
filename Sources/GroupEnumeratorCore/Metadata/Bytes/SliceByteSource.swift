/// A part of another byte source: `length` bytes from `offset`, addressed from 0.
///
/// Reads never reach outside the part, so a reader given the slice (the QuickTime reader
/// over the video inside a motion photo) sees exactly those bytes and nothing after them.
struct SliceByteSource<Base: ByteSource>: ByteSource {
  private let base: Base
  private let offset: Int
  /// The number of bytes of the part that the base source holds.
  let count: Int

  /// The part of `base` that `range` names, cut to what `base` holds.
  init(_ base: Base, range: Range<Int>) {
    self.base = base
    let start = min(max(0, range.lowerBound), base.count)
    self.offset = start
    self.count = max(0, min(range.upperBound, base.count) - start)
  }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    return try base.bytes(at: self.offset + offset, length: min(length, count - offset))
  }

  func prefetch(_ range: Range<Int>) {
    let range = range.clamped(to: 0..<count)
    guard !range.isEmpty else { return }
    base.prefetch((offset + range.lowerBound)..<(offset + range.upperBound))
  }

  func holds(_ range: Range<Int>) -> Bool {
    let range = range.clamped(to: 0..<count)
    return base.holds((offset + range.lowerBound)..<(offset + range.upperBound))
  }

  var verifiesEnds: Bool { base.verifiesEnds }
}
