import Foundation
import GroupEnumerator

/// The `--format csv` output: RFC 4180 (CRLF line ends, a header row, fields quoted
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
  /// The header row's fields, in column order.
  static let assetColumns = [
    "id", "url", "path", "name", "group", "type", "resources", "width", "height", "orientation",
    "duration",
    "creationDate", "creationDateSource", "dateTime", "latitude", "longitude", "altitude",
    "fileSize", "hasThumbnail", "make", "model", "lensModel", "problems",
  ]

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
    let group = AssetGroup(kind: asset.group, path: asset.groupPath)
    let location = asset.location
    return [
      asset.id.uuidString, asset.urlString, OutputHygiene.csvText(asset.path.escaped),
      OutputHygiene.csvText(asset.name), OutputHygiene.csvText(group.name), asset.type.rawValue,
      OutputHygiene.csvText(JSONFormatter.compactResources(of: asset)),
      text(asset.pixelWidth), text(asset.pixelHeight),
      text(asset.metadata.orientation), text(asset.duration),
      asset.creationDate?.iso8601 ?? "", asset.creationDate?.source.rawValue ?? "",
      OutputHygiene.csvText(asset.metadata.dateTime ?? ""),
      text(location?.latitude, decimalPlaces: Location.coordinateDecimalPlaces),
      text(location?.longitude, decimalPlaces: Location.coordinateDecimalPlaces),
      text(location?.altitude, decimalPlaces: Location.altitudeDecimalPlaces),
      String(asset.fileSize), String(asset.metadata.hasThumbnail),
      OutputHygiene.csvText(asset.metadata.make ?? ""),
      OutputHygiene.csvText(asset.metadata.model ?? ""),
      OutputHygiene.csvText(asset.metadata.lensModel ?? ""),
      OutputHygiene.csvText(JSONFormatter.compactProblems(of: asset)),
    ]
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

  private static func text(_ value: Int?) -> String { value.map(String.init) ?? "" }

  private static func text(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "" }
    return value.description
  }

  private static func text(_ value: Double?, decimalPlaces places: Int) -> String {
    guard let value, value.isFinite else { return "" }
    return DecimalText.fixed(value, decimalPlaces: places)
  }
}
