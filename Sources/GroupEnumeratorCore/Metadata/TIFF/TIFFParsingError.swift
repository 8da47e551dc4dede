/// What was wrong with a TIFF structure: its header, one of its directories, or one
/// entry's value. A walk records each fault and goes on past it.
///
/// ``description`` is the sentence reported to people (inside an
/// ``AssetProblem/Code/malformed`` problem that names the file's format).
enum TIFFParsingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The bytes do not start with `II` or `MM`.
  case noByteOrderMark
  /// Fewer bytes than a header were there.
  case headerCutShort(available: Int, layout: TIFFLayout)
  /// The header's version (and, for BigTIFF, offset size) is not the layout's.
  case wrongVersion(layout: TIFFLayout)
  /// A read of the underlying source failed.
  case unreadable(AssetProblem)
  /// An IFD offset was already read, or more IFDs were asked for than are read.
  case directoryRevisited(offset: UInt64)
  /// An IFD offset lies outside the bytes (or, for BigTIFF, inside the header).
  case directoryOutOfBounds(offset: UInt64, layout: TIFFLayout)
  /// An IFD's entry count could not be read whole.
  case directoryCutShort(offset: UInt64)
  /// An IFD declares more entries than fit in the bytes (or than are read).
  case entriesCut(offset: UInt64, declared: UInt64, read: Int, layout: TIFFLayout)
  /// A sub-IFD pointer is not one offset of a pointer type.
  case pointerNotOffset(tag: UInt16, layout: TIFFLayout)
  /// A tag's value lies outside the bytes.
  case valueOutOfBounds(tag: UInt16, layout: TIFFLayout)

  /// A sentence for people.
  var description: String {
    switch self {
    case .noByteOrderMark:
      "The file does not start with a TIFF byte order."
    case .headerCutShort(let available, let layout):
      layout == .big
        ? "The BigTIFF header is cut short: \(available) of 16 bytes."
        : "The TIFF header is cut short: \(available) of 8 bytes."
    case .wrongVersion(let layout):
      layout == .big
        ? "The BigTIFF header does not say version 43 with 8-byte offsets; it was not read."
        : "The TIFF header does not say version 42; it was not read."
    case .unreadable(let problem):
      problem.message
    case .directoryRevisited(let offset):
      "IFD at \(offset) was already read or too many IFDs."
    case .directoryOutOfBounds(let offset, let layout):
      layout == .big
        ? "IFD offset \(offset) lies in the 16-byte header or past the end of the file."
        : "IFD offset \(offset) is past the end of the EXIF block."
    case .directoryCutShort(let offset):
      "IFD at \(offset) is cut short."
    case .entriesCut(let offset, let declared, let read, let layout):
      layout == .big
        ? "IFD at \(offset) declares \(declared) entries; only \(read) were read."
        : "IFD at \(offset) declares \(declared) entries; only \(read) fit."
    case .pointerNotOffset(let tag, let layout):
      layout == .big
        ? "Pointer tag 0x\(String(tag, radix: 16)) is not one LONG, IFD, LONG8 or IFD8."
        : "Pointer tag 0x\(String(tag, radix: 16)) is not one LONG."
    case .valueOutOfBounds(let tag, let layout):
      layout == .big
        ? "Tag 0x\(String(tag, radix: 16)) has a value outside the file."
        : "Tag 0x\(String(tag, radix: 16)) has a value outside the block."
    }
  }

  /// The problem to report for a fault that ended a read: a failed read keeps its own
  /// code; anything else is ``AssetProblem/Code/malformed``.
  var assetProblem: AssetProblem {
    if case .unreadable(let problem) = self { return problem }
    return AssetProblem(.malformed, description)
  }
}
