/// Turns the GPS IFD's raw rationals and reference letters into signed decimal degrees.
///
/// In EXIF's GPS attributes, latitude and longitude are three
/// `RATIONAL`s — degrees, minutes, seconds — and the hemisphere is a separate ASCII
/// reference (`N`/`S`, `E`/`W`).
enum GPSCoordinate {
  /// Why a coordinate was rejected, as a sentence fragment for a problem message.
  struct Rejection: Error, Equatable {
    let reason: String
  }

  /// Degrees from a degrees/minutes/seconds triple.
  ///
  /// A field of `0/0` counts as zero: many cameras write it for unused seconds (and exiftool reads
  /// it so). A non-zero numerator over zero is rejected, as are minutes or seconds over 60 (exactly
  /// 60 is a writer's rounding and is accepted). An `SRATIONAL` triple is accepted when no part is
  /// negative.
  static func degrees(_ value: TIFFValue?) -> Result<Double, Rejection> {
    guard let parts = value?.unsignedRationals, parts.count == 3 else {
      return .failure(Rejection(reason: "is not three non-negative RATIONALs"))
    }
    var numbers: [Double] = []
    for part in parts {
      if part.denominator == 0 {
        guard part.numerator == 0 else {
          return .failure(Rejection(reason: "has a zero denominator (\(part.numerator)/0)"))
        }
        numbers.append(0)
      } else {
        numbers.append(Double(part.numerator) / Double(part.denominator))
      }
    }
    guard numbers[1] < 60 else { return .failure(Rejection(reason: "has \(numbers[1]) minutes")) }
    // Exactly 60 seconds is a writer's rounding (exiftool writes -37.8° as 37° 47' 60"),
    // not another place; more than that is not a coordinate.
    guard numbers[2] <= 60 else {
      return .failure(Rejection(reason: "has \(numbers[2]) seconds"))
    }
    return .success(numbers[0] + numbers[1] / 60 + numbers[2] / 3600)
  }

  /// The sign a reference letter gives: `+1` for `positive`, `-1` for `negative`.
  ///
  /// The value must be ASCII whose first character is one of the two letters, followed
  /// only by NULs or spaces.
  static func sign(
    of reference: TIFFValue?, positive: Character, negative: Character
  ) -> Result<Double, Rejection> {
    guard case .ascii(let bytes) = reference else {
      return .failure(Rejection(reason: "reference is missing or not ASCII"))
    }
    let letters = bytes.filter { $0 != 0 && $0 != UInt8(ascii: " ") }
    let text = String(decoding: letters, as: UTF8.self)
    if text == String(positive) { return .success(1) }
    if text == String(negative) { return .success(-1) }
    return .failure(Rejection(reason: "reference is '\(text)', not \(positive) or \(negative)"))
  }

  /// Metres above sea level from `GPSAltitudeRef` and `GPSAltitude`; `nil` when absent.
  ///
  /// - Returns: A rejection when the value is not one `RATIONAL`, has a zero denominator,
  ///   or the reference is not 0 (above) or 1 (below sea level).
  static func altitude(reference: TIFFValue?, value: TIFFValue?) -> Result<Double?, Rejection> {
    guard let value else { return .success(nil) }
    guard let parts = value.unsignedRationals, parts.count == 1, let part = parts.first else {
      return .failure(Rejection(reason: "altitude is not one non-negative RATIONAL"))
    }
    guard part.denominator != 0 else {
      return .failure(Rejection(reason: "altitude has a zero denominator"))
    }
    let metres = Double(part.numerator) / Double(part.denominator)
    guard let reference else { return .success(metres) }
    // EXIF says BYTE; Samsung phones write a SHORT. Any one integer is taken, as exiftool
    // does: strict on the value, tolerant on the type.
    switch reference.singleInteger {
    case 0: return .success(metres)
    case 1: return .success(-metres)
    default: return .failure(Rejection(reason: "altitude reference is not 0 or 1"))
    }
  }
}
