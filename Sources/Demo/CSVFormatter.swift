import FoundationEssentials
@_spi(Demo) import GroupEnumeratorCore

/// The `--format csv` output, in the common CSV form (CRLF line ends, a header row, fields quoted
/// when they hold a comma, a quote, CR or LF, quotes doubled).
///
/// Text from names and files (path, name, group, the raw `dateTime`, make, model and
/// lens) goes through
/// ``OutputHygiene/csvText(_:)``: a `'` before a leading `=`, `+`, `-`, `@`, tab or CR, and
/// control characters as `%XX`. Values the Demo makes itself (numbers such as a negative
/// latitude, dates, identifiers) are written as they are.
///
/// Absent values are empty fields. `resources` and `problems` are compact JSON arrays in
/// one field each (`[{"name":…,"path":…,"role":…}]` and `["code: message"]`, `[]` when
/// none), written as `--format json` writes them, so a message holding `;` or `,` stays
/// one element and control characters stay escaped (`\u001b`).
enum CSVFormatter {
  /// The header row's fields, in column order: the asset object's keys, with
  /// `location`'s members in its place and no `legacy`.
  static let assetColumns: [String] = {
    // Every record has the same columns whatever the asset holds, so any asset names them.
    let placeholder = Asset(
      path: LibraryPath(bytes: Array("a".utf8)), group: .savedPhotos, groupPath: .root,
      type: .photo, resources: [], fileModificationDate: Date(timeIntervalSince1970: 0),
      metadata: MediaMetadata())
    var visitor = CSVFieldVisitor()
    AssetSchema.visit(placeholder, with: &visitor)
    return visitor.columns
  }()

  /// The group columns of `Demo groups --format csv`.
  static let groupColumns = [
    "id", "url", "name", "type", "path", "count", "photos", "livePhotos", "videos",
  ]

  /// The header and one record per asset.
  static func format(assets: [Asset]) -> String {
    var text = record(assetColumns)
    for asset in assets { text += record(fields(for: asset)) }
    return text
  }

  /// The fields of one asset, in ``assetColumns`` order.
  static func fields(for asset: Asset) -> [String] {
    var visitor = CSVFieldVisitor()
    AssetSchema.visit(asset, with: &visitor)
    return visitor.fields
  }

  /// The fields of a file that is not an asset, in ``assetColumns`` order: `path`,
  /// `name`, `type` (`other`), `fileSize`, and `problems` holding its reason
  /// (`["notMedia: …"]`); every other field is empty.
  static func fields(for file: OtherFile) -> [String] {
    var fields = [String](repeating: "", count: assetColumns.count)
    func set(_ column: String, _ value: String) {
      if let index = assetColumns.firstIndex(of: column) { fields[index] = value }
    }
    set("path", OutputHygiene.csvText(file.path.escaped))
    set("name", OutputHygiene.csvText(file.name))
    set("type", "other")
    set("fileSize", String(file.fileSize))
    var problems = JSONWriter(compact: true)
    problems.array { array in array.string(file.description) }
    set("problems", OutputHygiene.csvText(problems.text))
    return fields
  }

  /// The header and one record per group.
  static func format(groups: [AssetGroup]) -> String {
    var text = record(groupColumns)
    for group in groups {
      text += record([
        group.id.uuidString, group.url.absoluteString, OutputHygiene.csvText(group.name),
        group.kind.rawValue, OutputHygiene.csvText(group.path.escaped), String(group.count),
        String(group.counts[.photo] ?? 0),
        String(group.counts[.livePhoto] ?? 0), String(group.counts[.video] ?? 0),
      ])
    }
    return text
  }

  /// One record: the fields, escaped, separated by commas, ending in CRLF.
  static func record(_ fields: [String]) -> String {
    fields.map(escaped).joined(separator: ",") + "\r\n"
  }

  /// `field` quoted when it holds a comma, a quote, CR or LF, with quotes doubled.
  static func escaped(_ field: String) -> String {
    let needsQuotes = field.unicodeScalars.contains { "\",\r\n".unicodeScalars.contains($0) }
    guard needsQuotes else { return field }
    return "\"" + field.replacing("\"", with: "\"\"") + "\""
  }
}

/// Makes the fields of one CSV record from the asset object that ``AssetSchema`` walks,
/// and the column names from its keys.
///
/// Text goes through ``OutputHygiene/csvText(_:)``; values the Demo makes itself (the
/// identifier, the URL, dates, numbers) are written as they are. `location`'s members are
/// columns of their own, `resources` and `problems` compact JSON arrays, and `legacy` is
/// left out. Absent values are empty fields.
private struct CSVFieldVisitor: AssetSchemaVisitor {
  private(set) var columns: [String] = []
  private(set) var fields: [String] = []

  private mutating func field(_ key: StaticString, _ value: String) {
    columns.append(key.description)
    fields.append(value)
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    field(key, OutputHygiene.csvText(value ?? ""))
  }

  mutating func integer<Value: FixedWidthInteger & Encodable>(
    _ key: StaticString, _ value: Value?
  ) {
    field(key, value.map { String($0) } ?? "")
  }

  mutating func number(_ key: StaticString, _ value: Double?) {
    guard let value, value.isFinite else { return field(key, "") }
    field(key, value.description)
  }

  mutating func number(_ key: StaticString, _ value: Double?, decimalPlaces places: Int) {
    guard let value, value.isFinite else { return field(key, "") }
    field(key, DecimalText.fixed(value, decimalPlaces: places))
  }

  mutating func bool(_ key: StaticString, _ value: Bool) { field(key, String(value)) }

  mutating func null(_ key: StaticString) { field(key, "") }

  /// An object's members are columns of their own.
  mutating func object(_ key: StaticString, _ members: (inout CSVFieldVisitor) -> Void) {
    members(&self)
  }

  /// A field has no room for objects: the one array of them, `resources`, is written
  /// as JSON by ``resources(_:of:)``.
  mutating func objects<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements,
    _ members: (inout CSVFieldVisitor, Elements.Element) -> Void
  ) {
    field(key, "")
  }

  mutating func strings(_ key: StaticString, _ values: [String]) {
    var writer = JSONWriter(compact: true)
    writer.array { array in
      for value in values { array.string(value) }
    }
    field(key, OutputHygiene.csvText(writer.text))
  }

  mutating func identifier(_ key: StaticString, _ id: UUID) { field(key, id.uuidString) }

  mutating func url(_ key: StaticString, of asset: Asset) { field(key, asset.urlString) }

  mutating func date(_ key: StaticString, _ date: CaptureDate?) {
    field(key, date?.iso8601 ?? "")
  }

  mutating func resources(_ key: StaticString, of asset: Asset) {
    field(key, OutputHygiene.csvText(JSONFormatter.compactResources(of: asset)))
  }

  /// `latitude`, `longitude` and `altitude` are columns, empty without GPS.
  mutating func location(_ key: StaticString, _ location: Location?) {
    AssetSchema.visit(location, with: &self)
  }

  /// The legacy dictionary repeats the URL, name, GPS and date: CSV leaves it out.
  mutating func legacy(_ key: StaticString, of asset: Asset?) {}
}
