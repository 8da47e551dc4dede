/// An asset encodes as the object the Demo prints for it (`Demo --format json`,
/// `Demo lookup`; docs/Formats.md): the same keys with the same values, so a program that
/// uses the library can write what the Demo writes with any `Encoder`.
///
/// ```swift
/// let data = try JSONEncoder().encode(asset)
/// ```
///
/// The members are `id`, `url`, `path`, `name`, `group` (the English name), `type`,
/// `resources` (`name`, `path`, `role`, and `byteRange` for a part of a file), `width`,
/// `height` (as displayed), `orientation`, `duration`, `creationDate` (ISO 8601), `creationDateSource`, `dateTime` (the raw TIFF
/// DateTime), `location` (`latitude`, `longitude` rounded to
/// ``Location/coordinateDecimalPlaces``, `altitude` to ``Location/altitudeDecimalPlaces``),
/// `fileSize`, `hasThumbnail`, `make`, `model`, `lensModel` (``MediaMetadata/make``…),
/// `legacy` (``legacyDictionary``, for photos and Live Photos)
/// and `problems` (`"code: message"` strings). Absent values are `null`; only the legacy
/// dictionary keeps the original's `"0"` and `"0.0"` placeholders.
///
/// An asset is `Encodable` only: the object leaves out most of what an ``Asset`` holds
/// (every capture date the file had, each resource's format and size, the file's
/// modification time), so it cannot be decoded back into the same value.
extension Asset: Encodable {
  /// The object's keys, in the order the Demo writes them (an `Encoder` may reorder them).
  enum CodingKeys: String, CodingKey {
    case id, url, path, name, group, type, resources, width, height, orientation, duration
    case creationDate, creationDateSource, dateTime, location, fileSize, hasThumbnail
    case make, model, lensModel, legacy, problems
  }

  /// Encodes the asset as the Demo's JSON object (see the extension's overview).
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What `encoder` throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    let metadata = self.metadata
    let url = urlString
    try container.encode(StableIdentifier.text(of: id), forKey: .id)
    try container.encode(url, forKey: .url)
    try container.encode(path.escaped, forKey: .path)
    try container.encode(name, forKey: .name)
    try container.encode(AssetGroup(kind: group, path: groupPath).name, forKey: .group)
    try container.encode(type.rawValue, forKey: .type)
    try container.encode(resources.map(EncodedResource.init), forKey: .resources)
    try container.encode(pixelWidth, forKey: .width)
    try container.encode(pixelHeight, forKey: .height)
    try container.encode(metadata.orientation, forKey: .orientation)
    try container.encode(duration.flatMap { $0.isFinite ? $0 : nil }, forKey: .duration)
    let date = creationDate
    try container.encode(date?.iso8601, forKey: .creationDate)
    try container.encode(date?.source.rawValue, forKey: .creationDateSource)
    try container.encode(metadata.dateTime, forKey: .dateTime)
    try container.encode(location.map(EncodedLocation.init), forKey: .location)
    try container.encode(fileSize, forKey: .fileSize)
    try container.encode(metadata.hasThumbnail, forKey: .hasThumbnail)
    try container.encode(metadata.make, forKey: .make)
    try container.encode(metadata.model, forKey: .model)
    try container.encode(metadata.lensModel, forKey: .lensModel)
    if type == .video {
      try container.encodeNil(forKey: .legacy)
    } else {
      try container.encode(EncodedLegacyDictionary(asset: self, url: url), forKey: .legacy)
    }
    try container.encode(problems.map(\.description), forKey: .problems)
  }
}

/// One element of `resources`: `name`, `path` (escaped) and `role`, and for a part of a
/// file (a motion photo's video) `byteRange` (`offset`, `length`), left out otherwise.
private struct EncodedResource: Encodable {
  let name: String
  let path: String
  let role: String
  let byteRange: EncodedByteRange?

  init(_ resource: AssetResource) {
    name = resource.name
    path = resource.path.escaped
    role = resource.role.rawValue
    byteRange = resource.byteRange.map {
      EncodedByteRange(offset: $0.lowerBound, length: Int64($0.count))
    }
  }

  enum CodingKeys: String, CodingKey { case name, path, role, byteRange }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(path, forKey: .path)
    try container.encode(role, forKey: .role)
    try container.encodeIfPresent(byteRange, forKey: .byteRange)
  }
}

/// `byteRange` of a resource: its first byte and its length.
private struct EncodedByteRange: Encodable {
  let offset: Int64
  let length: Int64
}

/// `location`: signed degrees and metres, rounded as the Demo writes them.
private struct EncodedLocation: Encodable {
  let latitude: Double
  let longitude: Double
  let altitude: Double?

  init(_ location: Location) {
    latitude = Location.rounded(location.latitude, decimalPlaces: Location.coordinateDecimalPlaces)
    longitude = Location.rounded(
      location.longitude, decimalPlaces: Location.coordinateDecimalPlaces)
    altitude = location.altitude.map {
      Location.rounded($0, decimalPlaces: Location.altitudeDecimalPlaces)
    }
  }

  enum CodingKeys: String, CodingKey { case latitude, longitude, altitude }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(latitude, forKey: .latitude)
    try container.encode(longitude, forKey: .longitude)
    // `null`, not a missing key, when the altitude is not recorded.
    try container.encode(altitude, forKey: .altitude)
  }
}

/// `legacy`: ``Asset/legacyDictionary``, its GPS degrees unrounded and its placeholders
/// (`"0"`, `"0.0"`) kept.
private struct EncodedLegacyDictionary: Encodable {
  let url: String
  let name: String
  let gps: LegacyGPS
  let dateTime: String

  init(asset: Asset, url: String) {
    self.url = url
    name = asset.name
    gps = asset.legacyGPS
    dateTime = asset.legacyDateTime
  }

  enum CodingKeys: String, CodingKey {
    case photoDefaultPath, photoThumPath, photoName, photoGPS, photoDateTime
  }

  enum GPSKeys: String, CodingKey {
    case latitude = "Latitude"
    case latitudeReference = "LatitudeRef"
    case longitude = "Longitude"
    case longitudeReference = "LongitudeRef"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(url, forKey: .photoDefaultPath)
    try container.encode(url, forKey: .photoThumPath)
    try container.encode(name, forKey: .photoName)
    var gpsContainer = container.nestedContainer(keyedBy: GPSKeys.self, forKey: .photoGPS)
    switch gps {
    case .coordinates(let latitude, let longitude):
      try gpsContainer.encode(latitude.degrees, forKey: .latitude)
      try gpsContainer.encode(latitude.reference, forKey: .latitudeReference)
      try gpsContainer.encode(longitude.degrees, forKey: .longitude)
      try gpsContainer.encode(longitude.reference, forKey: .longitudeReference)
    case .missing:
      try gpsContainer.encode(LegacyGPS.missingCoordinateText, forKey: .latitude)
      try gpsContainer.encode(LegacyGPS.missingCoordinateText, forKey: .longitude)
    }
    try container.encode(dateTime, forKey: .photoDateTime)
  }
}
