/// Where a shot was taken, as signed decimal degrees (south and west negative) and
/// metres above sea level.
public struct Location: Sendable, Hashable {
  /// Degrees north of the equator; negative in the southern hemisphere. Always in -90…90.
  public let latitude: Double
  /// Degrees east of Greenwich; negative in the western hemisphere. Always in -180…180.
  public let longitude: Double
  /// Metres above sea level (negative below), when recorded.
  public let altitude: Double?

  /// Creates a location after checking its range.
  ///
  /// - Returns: `nil` when a value is not finite or out of range.
  public init?(latitude: Double, longitude: Double, altitude: Double? = nil) {
    guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
    else { return nil }
    if let altitude, !altitude.isFinite { return nil }
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
  }
}

extension Location {
  /// A coordinate as EXIF and ImageIO's `{GPS}` dictionary write it: unsigned degrees
  /// and the hemisphere's letter.
  public struct UnsignedCoordinate: Sendable, Hashable {
    /// Degrees, never negative.
    public let degrees: Double
    /// `N` or `S` for a latitude, `E` or `W` for a longitude.
    public let reference: String
  }

  /// ``latitude`` as unsigned degrees with `N` (also for the equator) or `S`.
  public var unsignedLatitude: UnsignedCoordinate {
    UnsignedCoordinate(degrees: abs(latitude), reference: latitude < 0 ? "S" : "N")
  }

  /// ``longitude`` as unsigned degrees with `E` (also for Greenwich) or `W`.
  public var unsignedLongitude: UnsignedCoordinate {
    UnsignedCoordinate(degrees: abs(longitude), reference: longitude < 0 ? "W" : "E")
  }
}

extension Location {
  /// The decimal places JSON and CSV give a latitude or a longitude: 7, about a
  /// centimetre, more than any phone's GPS resolves.
  public static let coordinateDecimalPlaces = 7

  /// The decimal places JSON and CSV give an altitude: 3, a millimetre.
  public static let altitudeDecimalPlaces = 3

  /// `value` rounded to `places` decimal places (halves away from zero), the nearest
  /// `Double` to that decimal, so that its shortest text has at most `places` decimals;
  /// `value` itself when it is not finite or too large to carry that many decimals.
  ///
  /// - Parameters:
  ///   - value: The number to round.
  ///   - places: How many decimals to keep, 0…15.
  public static func rounded(_ value: Double, decimalPlaces places: Int) -> Double {
    guard let scaled = scaledInteger(value, decimalPlaces: places) else { return value }
    // An integer below 2^53 and a power of ten up to 1e15 are exact, so the division
    // rounds once: to the Double nearest the decimal.
    return Double(scaled) / pow10(places)
  }

  /// `value × 10^places` rounded to an integer (halves away from zero), or `nil` when
  /// `value` is not finite or that integer is not exact in a `Double` (2^53 or more).
  ///
  /// - Parameters:
  ///   - value: The number to scale.
  ///   - places: How many decimals to keep, 0…15.
  public static func scaledInteger(_ value: Double, decimalPlaces places: Int) -> Int64? {
    guard value.isFinite, (0...15).contains(places) else { return nil }
    let scaled = (value * pow10(places)).rounded(.toNearestOrAwayFromZero)
    guard scaled.isFinite, abs(scaled) < 9_007_199_254_740_992 else { return nil }
    return Int64(scaled)
  }

  private static func pow10(_ places: Int) -> Double {
    var result = 1.0
    for _ in 0..<places { result *= 10 }
    return result
  }
}
