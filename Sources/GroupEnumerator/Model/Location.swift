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
