/// The two TIFF structures: classic TIFF and BigTIFF, which differ only in the widths of
/// their offsets and counts.
///
/// - Classic: an 8-byte header (`II*\0` or `MM\0*`, version 42, the first
///   IFD's 4-byte offset); IFDs of a 2-byte entry count, 12-byte entries (tag, type,
///   4-byte count, 4-byte value or offset) and a 4-byte next-IFD offset.
/// - BigTIFF (libtiff's 64-bit extension): a 16-byte header (`II+\0` or
///   `MM\0+`, version 43, the offset size 8, a reserved 0, the first IFD's 8-byte offset);
///   IFDs of an 8-byte entry count, 20-byte entries (tag, type, 8-byte count, 8-byte value
///   or offset); the types `LONG8` (16), `SLONG8` (17) and `IFD8` (18), 8 bytes each.
enum TIFFLayout: Sendable, Hashable {
  /// TIFF 6.0: 4-byte offsets.
  case classic
  /// BigTIFF: 8-byte offsets.
  case big

  /// The width of an offset, of an entry's count and of its value field: 4 or 8.
  var offsetWidth: Int { self == .classic ? 4 : 8 }
  /// The length of the header.
  var headerLength: Int { self == .classic ? 8 : 16 }
  /// The width of an IFD's entry count: 2 or 8.
  var entryCountWidth: Int { self == .classic ? 2 : 8 }
  /// The length of one IFD entry: 12 or 20.
  var entryLength: Int { 4 + 2 * offsetWidth }
  /// The version number in the header: 42 or 43.
  var version: UInt16 { self == .classic ? 42 : 43 }
  /// The lowest offset an IFD may have: anywhere for classic TIFF (as libexif reads it),
  /// after the header for BigTIFF.
  var minimumDirectoryOffset: UInt64 { self == .classic ? 0 : 16 }
  /// The most entries read from one IFD: all that fit in the bytes for classic TIFF (an
  /// EXIF block is at most a few megabytes), 4,096 for BigTIFF (a file of gigabytes).
  var maximumEntries: Int { self == .classic ? Int.max : 4096 }
  /// The most bytes an `ASCII` value keeps: all for classic TIFF, as many as an
  /// `UNDEFINED` value for BigTIFF, whose values are read from the file one by one.
  var maximumTextLength: Int { self == .classic ? Int.max : TIFFValue.maximumUndefinedLength }

  /// The length in bytes of one component of a TIFF `type` (the classic types; for
  /// BigTIFF also `LONG8`, `SLONG8`, `IFD8`), or `nil` for a type the layout does not
  /// define.
  func unitLength(ofType type: UInt16) -> Int? {
    switch type {
    case 1, 2, 6, 7: 1
    case 3, 8: 2
    case 4, 9, 11, 13: 4
    case 5, 10, 12: 8
    case 16, 17, 18: self == .big ? 8 : nil
    default: nil
    }
  }
}
