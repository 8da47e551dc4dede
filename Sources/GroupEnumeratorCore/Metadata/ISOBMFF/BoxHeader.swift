/// The header of one box: its type, where it starts, and where its content lies.
///
/// A 32-bit `size` and a 32-bit `type`; `size` 1 means a 64-bit
/// `largesize` follows the type; `size` 0 means the box extends to the end of the file
/// (we extend it to the end of its enclosing box, which is the file at top level).
///
/// A box that declares more bytes than its parent has left is *clamped* to the parent's
/// end and marked ``isTruncated``: what it does contain is still read, and the reader
/// reports ``BoxParsingError/sizeOutOfBounds(type:offset:declared:available:)``.
struct BoxHeader: Hashable, Sendable {
  /// The box type.
  let type: FourCharacterCode
  /// Where the box starts in the file.
  let offset: Int
  /// 8, or 16 with a `largesize`.
  let headerLength: Int
  /// The size the box declares, or `nil` for size 0 ("to the end").
  let declaredSize: UInt64?
  /// Where the box ends, never past its parent's end.
  let end: Int
  /// Whether the declared size ran past the parent's end and was clamped.
  let isTruncated: Bool

  /// The byte range of the box's content, after the header.
  var contentRange: Range<Int> { (offset + headerLength)..<end }

  /// The number of content bytes.
  var contentLength: Int { end - offset - headerLength }

  /// The longest a header is: size, type and a 64-bit largesize.
  static let maximumLength = 16

  /// Parses a header from the bytes at `offset`.
  ///
  /// - Parameters:
  ///   - bytes: The bytes starting at `offset`; up to 16 are looked at.
  ///   - offset: Where the box starts in the file.
  ///   - parentEnd: Where the enclosing box (or the file) ends; `offset < parentEnd`.
  /// - Throws: ``BoxParsingError/truncatedHeader(offset:available:)`` when fewer than 8
  ///   (or, with a largesize, 16) bytes remain;
  ///   ``BoxParsingError/sizeTooSmall(type:offset:declared:minimum:)`` when the size is
  ///   2…7, or a largesize below 16.
  init(parsing bytes: [UInt8], at offset: Int, parentEnd: Int) throws(BoxParsingError) {
    let available = max(0, parentEnd - offset)
    let usable = min(bytes.count, available)
    guard usable >= 8 else { throw .truncatedHeader(offset: offset, available: usable) }
    let size32 = IntegerReader.bigEndian.uint32(bytes, at: 0) ?? 0
    let type = FourCharacterCode(rawValue: IntegerReader.bigEndian.uint32(bytes, at: 4) ?? 0)
    self.type = type
    self.offset = offset
    let declared: UInt64
    switch size32 {
    case 0:
      headerLength = 8
      declaredSize = nil
      end = parentEnd
      isTruncated = false
      return
    case 1:
      guard usable >= 16, let large = IntegerReader.bigEndian.uint64(bytes, at: 8) else {
        throw .truncatedHeader(offset: offset, available: usable)
      }
      guard large >= 16 else {
        throw .sizeTooSmall(type: type, offset: offset, declared: large, minimum: 16)
      }
      headerLength = 16
      declared = large
    case 2...7:
      throw .sizeTooSmall(type: type, offset: offset, declared: UInt64(size32), minimum: 8)
    default:
      headerLength = 8
      declared = UInt64(size32)
    }
    declaredSize = declared
    if let size = Int(exactly: declared), size <= available {
      let (sum, overflow) = offset.addingReportingOverflow(size)
      end = overflow ? parentEnd : sum
      isTruncated = overflow
    } else {
      end = parentEnd
      isTruncated = true
    }
  }

  /// The problem to report when the box was clamped to its parent, or `nil`.
  var truncation: BoxParsingError? {
    guard isTruncated, let declaredSize else { return nil }
    return .sizeOutOfBounds(
      type: type, offset: offset, declared: declaredSize, available: end - offset)
  }
}
