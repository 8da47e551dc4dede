public import FoundationEssentials

/// The object written for an asset (docs/Formats.md, "JSON, ndjson and CSV"): the keys of
/// its members, their order, and which of the asset's values each holds, stated once.
///
/// Every writer of the object walks it through ``visit(_:with:)``: `Encodable`
/// (Asset+Codable.swift), the Demo's JSON, ndjson and CSV writers, and (for the `legacy`
/// member) ``Asset/legacyDictionary``. A writer is an ``AssetSchemaVisitor``; the walk
/// calls it once per member, in order, with the member's key and value.
///
/// The walks are `@inlinable` and generic, so each writer gets a copy specialised for its
/// own visitor: a member costs a direct call with a `StaticString` key, no boxing and no
/// allocation. They are SPI (`@_spi(Demo)`), not `package`: only a public `@inlinable`
/// body is specialised in another module.
@_spi(Demo) public enum AssetSchema {
  /// Calls `visitor` once for each member of `asset`'s object, in the written order.
  @inlinable
  public static func visit<Visitor: AssetSchemaVisitor>(
    _ asset: Asset, with visitor: inout Visitor
  ) {
    // Each read of `metadata` copies the whole struct, and `creationDate` picks among
    // its dates: read them once.
    let metadata = asset.metadata
    let creationDate = asset.creationDate
    visitor.identifier("id", asset.id)
    visitor.url("url", of: asset)
    visitor.path("path", of: asset)
    visitor.name("name", of: asset)
    visitor.groupName("group", of: asset)
    visitor.string("type", asset.type.rawValue)
    visitor.resources("resources", of: asset)
    visitor.integer("width", asset.pixelWidth)
    visitor.integer("height", asset.pixelHeight)
    visitor.integer("orientation", metadata.orientation)
    visitor.number("duration", asset.duration)
    visitor.date("creationDate", creationDate)
    visitor.string("creationDateSource", creationDate?.source.rawValue)
    // The raw TIFF DateTime, `null` when absent: only the legacy dictionary keeps the
    // original's `"0"`.
    visitor.string("dateTime", metadata.dateTime)
    visitor.location("location", asset.location)
    visitor.integer("fileSize", asset.fileSize)
    visitor.bool("hasThumbnail", metadata.hasThumbnail)
    visitor.string("make", metadata.make)
    visitor.string("model", metadata.model)
    visitor.string("lensModel", metadata.lensModel)
    // Videos have no legacy dictionary: the original listed photos only.
    visitor.legacy("legacy", of: asset.type == .video ? nil : asset)
    visitor.problems("problems", asset.problems)
  }

  /// Calls `visitor` for the members of one element of `resources`: `name`, `path` and
  /// `role`, and `byteRange` (`offset`, `length`) for a part of a file (a motion photo's
  /// video), left out otherwise.
  ///
  /// A resource that is the asset's own file is written through the visitor's
  /// ``AssetSchemaVisitor/name(_:of:)`` and ``AssetSchemaVisitor/path(_:of:)``, which
  /// may have the asset's text at hand already.
  @inlinable
  public static func visit<Visitor: AssetSchemaVisitor>(
    _ resource: AssetResource, of asset: Asset, with visitor: inout Visitor
  ) {
    if resource.path == asset.path {
      visitor.name("name", of: asset)
      visitor.path("path", of: asset)
    } else {
      visitor.string("name", resource.name)
      visitor.string("path", resource.path.escaped)
    }
    visitor.string("role", resource.role.rawValue)
    if let range = resource.byteRange {
      visitor.object("byteRange") { part in
        part.integer("offset", range.lowerBound)
        part.integer("length", Int64(range.count))
      }
    }
  }

  /// Calls `visitor` for the members of `location`: the signed `latitude`, `longitude`
  /// (at most ``Location/coordinateDecimalPlaces`` decimals) and `altitude` (at most
  /// ``Location/altitudeDecimalPlaces``); each is `nil` when `location` is.
  @inlinable
  public static func visit<Visitor: AssetSchemaVisitor>(
    _ location: Location?, with visitor: inout Visitor
  ) {
    visitor.number(
      "latitude", location?.latitude, decimalPlaces: Location.coordinateDecimalPlaces)
    visitor.number(
      "longitude", location?.longitude, decimalPlaces: Location.coordinateDecimalPlaces)
    visitor.number("altitude", location?.altitude, decimalPlaces: Location.altitudeDecimalPlaces)
  }
}

/// A writer of the asset object, called by ``AssetSchema`` once per member with its key.
///
/// The members whose value is an asset's text (`url`, `path`, `name`, `group`) or a nested
/// value (`resources`, `location`, `legacy`, `problems`) have their own requirements,
/// implemented by default through the plain ones, so that a writer may write them its own
/// faster way.
@_spi(Demo) public protocol AssetSchemaVisitor {
  /// A text member, or `null` when `value` is `nil`.
  mutating func string(_ key: StaticString, _ value: String?)
  /// An integer member, or `null` when `value` is `nil`.
  mutating func integer<Value: FixedWidthInteger & Encodable>(_ key: StaticString, _ value: Value?)
  /// A number member, or `null` when `value` is `nil` or not finite.
  mutating func number(_ key: StaticString, _ value: Double?)
  /// A number member rounded to `places` decimals
  /// (``Location/rounded(_:decimalPlaces:)``), or `null` when `value` is `nil`.
  mutating func number(_ key: StaticString, _ value: Double?, decimalPlaces places: Int)
  mutating func bool(_ key: StaticString, _ value: Bool)
  mutating func null(_ key: StaticString)
  /// An object member whose members `members` writes.
  mutating func object(_ key: StaticString, _ members: (inout Self) -> Void)
  /// An array member with one object per element of `elements`, whose members `members`
  /// writes.
  mutating func objects<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements, _ members: (inout Self, Elements.Element) -> Void)
  /// An array member of texts.
  mutating func strings(_ key: StaticString, _ values: [String])

  /// The asset's identifier, as upper-case hex in groups of 8, 4, 4, 4 and 12 digits.
  mutating func identifier(_ key: StaticString, _ id: UUID)
  /// ``Asset/urlString``.
  mutating func url(_ key: StaticString, of asset: Asset)
  /// The asset's path, escaped (``LibraryPath/escaped``).
  mutating func path(_ key: StaticString, of asset: Asset)
  /// ``Asset/name``.
  mutating func name(_ key: StaticString, of asset: Asset)
  /// The English name of the asset's group (``AssetGroup/name``).
  mutating func groupName(_ key: StaticString, of asset: Asset)
  /// ``CaptureDate/iso8601``, or `null`.
  mutating func date(_ key: StaticString, _ date: CaptureDate?)
  /// The array of ``AssetSchema/visit(_:of:with:)`` objects.
  mutating func resources(_ key: StaticString, of asset: Asset)
  /// The ``AssetSchema/visit(_:with:)-(Location?,_)`` object, or `null` without GPS.
  mutating func location(_ key: StaticString, _ location: Location?)
  /// The legacy dictionary of a photo, or `null` for `nil` (a video).
  mutating func legacy(_ key: StaticString, of asset: Asset?)
  /// The problems as `code: message` texts.
  mutating func problems(_ key: StaticString, _ problems: [AssetProblem])
}

extension AssetSchemaVisitor {
  /// The identifier as ``string(_:_:)``, in `uuidString`'s form.
  @inlinable
  public mutating func identifier(_ key: StaticString, _ id: UUID) {
    string(key, id.uuidString)
  }

  /// ``Asset/urlString`` as ``string(_:_:)``.
  @inlinable
  public mutating func url(_ key: StaticString, of asset: Asset) {
    string(key, asset.urlString)
  }

  /// The escaped path as ``string(_:_:)``.
  @inlinable
  public mutating func path(_ key: StaticString, of asset: Asset) {
    string(key, asset.path.escaped)
  }

  /// ``Asset/name`` as ``string(_:_:)``.
  @inlinable
  public mutating func name(_ key: StaticString, of asset: Asset) {
    string(key, asset.name)
  }

  /// The group's English name as ``string(_:_:)``.
  @inlinable
  public mutating func groupName(_ key: StaticString, of asset: Asset) {
    string(key, AssetGroup(kind: asset.group, path: asset.groupPath).name)
  }

  /// ``CaptureDate/iso8601`` as ``string(_:_:)``.
  @inlinable
  public mutating func date(_ key: StaticString, _ date: CaptureDate?) {
    string(key, date?.iso8601)
  }

  /// One object per resource, through ``objects(_:_:_:)``.
  @inlinable
  public mutating func resources(_ key: StaticString, of asset: Asset) {
    objects(key, asset.resources) { visitor, resource in
      AssetSchema.visit(resource, of: asset, with: &visitor)
    }
  }

  /// An object through ``object(_:_:)``, or ``null(_:)`` without GPS.
  @inlinable
  public mutating func location(_ key: StaticString, _ location: Location?) {
    guard let location else { return null(key) }
    object(key) { AssetSchema.visit(location, with: &$0) }
  }

  /// The `code: message` texts through ``strings(_:_:)``.
  @inlinable
  public mutating func problems(_ key: StaticString, _ problems: [AssetProblem]) {
    strings(key, problems.map(\.description))
  }
}
