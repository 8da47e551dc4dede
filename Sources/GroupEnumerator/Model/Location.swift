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
