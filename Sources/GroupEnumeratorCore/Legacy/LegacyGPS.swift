/// `photoGPS` of the legacy dictionary (docs/Formats.md, "Legacy dictionaries"): where a photo was taken as ImageIO's
/// `{GPS}` dictionary has it, or the original's placeholder when it has no location.
///
/// The modern equivalent is ``Asset/location`` (signed degrees).
public enum LegacyGPS: Sendable, Hashable {
  /// Unsigned degrees with `N`/`S` and `E`/`W`.
  case coordinates(latitude: Location.UnsignedCoordinate, longitude: Location.UnsignedCoordinate)
  /// No location: both coordinates are the text ``missingCoordinateText``, with no refs.
  case missing

  /// What `Latitude` and `Longitude` hold when the photo has no location: the text `0.0`.
  public static let missingCoordinateText = "0.0"

  /// The legacy form of `location`.
  ///
  /// - Parameter location: Where the photo was taken, or `nil`.
  public init(_ location: Location?) {
    if let location {
      self = .coordinates(
        latitude: location.unsignedLatitude, longitude: location.unsignedLongitude)
    } else {
      self = .missing
    }
  }

  /// `["Latitude": Double, "LatitudeRef": "N"|"S", "Longitude": Double, "LongitudeRef":
  /// "E"|"W"]`, or exactly `["Latitude": "0.0", "Longitude": "0.0"]`.
  public var dictionary: [String: any Sendable] {
    var builder = LegacyDictionaryBuilder()
    AssetSchema.visit(self, with: &builder)
    return builder.dictionary
  }
}

@_spi(Demo) extension AssetSchema {
  /// Calls `visitor` for the members of `photoGPS`: `Latitude`, `LatitudeRef`,
  /// `Longitude` and `LongitudeRef`, or only `Latitude` and `Longitude` holding
  /// ``LegacyGPS/missingCoordinateText`` without a location.
  @inlinable
  public static func visit<Visitor: AssetSchemaVisitor>(
    _ gps: LegacyGPS, with visitor: inout Visitor
  ) {
    switch gps {
    case .coordinates(let latitude, let longitude):
      visitor.number("Latitude", latitude.degrees)
      visitor.string("LatitudeRef", latitude.reference)
      visitor.number("Longitude", longitude.degrees)
      visitor.string("LongitudeRef", longitude.reference)
    case .missing:
      visitor.string("Latitude", LegacyGPS.missingCoordinateText)
      visitor.string("Longitude", LegacyGPS.missingCoordinateText)
    }
  }
}
