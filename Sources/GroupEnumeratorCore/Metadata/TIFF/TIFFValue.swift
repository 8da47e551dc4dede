/// An unsigned TIFF `RATIONAL`: two unsigned 32-bit integers, as stored.
struct TIFFRational: Hashable, Sendable {
  var numerator: UInt32
  var denominator: UInt32
}

/// A signed TIFF `SRATIONAL`: two signed 32-bit integers, as stored.
struct TIFFSignedRational: Hashable, Sendable {
  var numerator: Int32
  var denominator: Int32
}

/// One tag's value, decoded from its raw bytes according to its stored TIFF type.
///
/// Only the types the readers interpret are decoded; anything else is kept as its type
/// number so that a reader can say it was the wrong type.
enum TIFFValue: Hashable, Sendable {
  /// TIFF type 1, `BYTE`.
  case byte([UInt8])
  /// TIFF type 2, `ASCII`: the stored bytes, with no assumption of a terminating NUL.
  case ascii([UInt8])
  /// TIFF type 3, `SHORT`.
  case short([UInt16])
  /// TIFF type 4, `LONG`.
  case long([UInt32])
  /// TIFF type 7, `UNDEFINED`: raw bytes (at most ``TIFFValue/maximumUndefinedLength``).
  case undefined([UInt8])
  /// TIFF type 9, `SLONG`.
  case signedLong([Int32])
  /// TIFF type 5, `RATIONAL`.
  case rational([TIFFRational])
  /// TIFF type 10, `SRATIONAL`.
  case signedRational([TIFFSignedRational])
  /// Any other type, by its TIFF type number.
  case other(type: UInt16)

  /// The most bytes an `UNDEFINED` value keeps (a MakerNote is read only for its
  /// content identifier, which sits in its first few hundred bytes).
  static let maximumUndefinedLength = 65_536

  /// The value's `RATIONAL`s; an `SRATIONAL` value counts when no part is negative (some
  /// writers store GPS coordinates signed).
  var unsignedRationals: [TIFFRational]? {
    switch self {
    case .rational(let parts): return parts
    case .signedRational(let parts):
      guard parts.allSatisfy({ $0.numerator >= 0 && $0.denominator >= 0 }) else { return nil }
      return parts.map {
        TIFFRational(
          numerator: UInt32(truncatingIfNeeded: $0.numerator),
          denominator: UInt32(truncatingIfNeeded: $0.denominator))
      }
    default: return nil
    }
  }

  /// The single integer of a one-component `BYTE`, `SHORT`, `LONG` or `SLONG` value:
  /// writers disagree on the type of small integer fields (Samsung stores
  /// `GPSAltitudeRef` as a SHORT where EXIF says BYTE), so the type is not held against a
  /// value that is right.
  var singleInteger: Int? {
    switch self {
    case .byte(let values) where values.count == 1: values.first.map { Int($0) }
    case .short(let values) where values.count == 1: values.first.map { Int($0) }
    case .long(let values) where values.count == 1: values.first.map { Int($0) }
    case .signedLong(let values) where values.count == 1: values.first.map { Int($0) }
    default: nil
    }
  }
}
