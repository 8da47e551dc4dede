/// An unsigned EXIF `RATIONAL`: two unsigned 32-bit integers, as stored.
struct EXIFRational: Hashable, Sendable {
  var numerator: UInt32
  var denominator: UInt32
}

/// A signed EXIF `SRATIONAL`: two signed 32-bit integers, as stored.
struct EXIFSignedRational: Hashable, Sendable {
  var numerator: Int32
  var denominator: Int32
}

/// The EXIF image file directories the readers look tags up in.
///
/// A tag number means different things in different directories (GPS tag 0x0001 is
/// `GPSLatitudeRef`, Interoperability tag 0x0001 is `InteroperabilityIndex`), so every
/// lookup names its directory.
enum EXIFDirectory: Hashable, Sendable, CaseIterable {
  /// IFD0, the main image's TIFF directory.
  case ifd0
  /// The EXIF sub-IFD (`ExifIFDPointer`, 0x8769).
  case exif
  /// The GPS sub-IFD (`GPSInfoIFDPointer`, 0x8825).
  case gps
  /// IFD1, the thumbnail's directory.
  case ifd1
}

/// One tag's value, decoded from its raw bytes according to its stored TIFF type.
///
/// Only the types the readers interpret are decoded; anything else is kept as its type
/// number so that a reader can say it was the wrong type.
enum EXIFValue: Hashable, Sendable {
  /// TIFF type 1, `BYTE`.
  case byte([UInt8])
  /// TIFF type 2, `ASCII`: the stored bytes, with no assumption of a terminating NUL.
  case ascii([UInt8])
  /// TIFF type 3, `SHORT`.
  case short([UInt16])
  /// TIFF type 4, `LONG`.
  case long([UInt32])
  /// TIFF type 7, `UNDEFINED`: raw bytes (at most ``EXIFValue/maximumUndefinedLength``).
  case undefined([UInt8])
  /// TIFF type 9, `SLONG`.
  case signedLong([Int32])
  /// TIFF type 5, `RATIONAL`.
  case rational([EXIFRational])
  /// TIFF type 10, `SRATIONAL`.
  case signedRational([EXIFSignedRational])
  /// Any other type, by its TIFF type number.
  case other(type: UInt16)

  /// The most bytes an `UNDEFINED` value keeps (a MakerNote is read only for its
  /// content identifier, which sits in its first few hundred bytes).
  static let maximumUndefinedLength = 65_536

  /// The value's `RATIONAL`s; an `SRATIONAL` value counts when no part is negative (some
  /// writers store GPS coordinates signed).
  var unsignedRationals: [EXIFRational]? {
    switch self {
    case .rational(let parts): return parts
    case .signedRational(let parts):
      guard parts.allSatisfy({ $0.numerator >= 0 && $0.denominator >= 0 }) else { return nil }
      return parts.map {
        EXIFRational(
          numerator: UInt32(truncatingIfNeeded: $0.numerator),
          denominator: UInt32(truncatingIfNeeded: $0.denominator))
      }
    default: return nil
    }
  }

  /// The single unsigned integer of a one-component `SHORT` or `LONG` value.
  var singleInteger: Int? {
    switch self {
    case .short(let values) where values.count == 1: values.first.map { Int($0) }
    case .long(let values) where values.count == 1: values.first.map { Int($0) }
    case .signedLong(let values) where values.count == 1: values.first.map { Int($0) }
    default: nil
    }
  }
}

/// The tags a reader found, keyed by directory and tag number.
struct EXIFTagTable: Sendable {
  /// The key of one tag: its directory and its number.
  struct Key: Hashable, Sendable {
    var directory: EXIFDirectory
    var tag: UInt16
  }

  /// The decoded values.
  var values: [Key: EXIFValue] = [:]
  /// How many entries each directory held (including tags that were not decoded).
  var entryCounts: [EXIFDirectory: Int] = [:]
  /// Whether an IFD1 thumbnail was found whose bytes lie inside the EXIF block.
  var hasThumbnail = false

  /// The value of `tag` in `directory`, if present.
  subscript(directory: EXIFDirectory, tag: UInt16) -> EXIFValue? {
    values[Key(directory: directory, tag: tag)]
  }
}
