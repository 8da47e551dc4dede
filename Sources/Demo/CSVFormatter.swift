import Foundation
import GroupEnumerator

/// The `--format csv` output: RFC 4180 (CRLF line ends, a header row, fields quoted
/// when they hold a comma, a quote, CR or LF, quotes doubled).
///
/// Text from names and files (path, name, group, the raw `dateTime`, problems) goes
/// through ``OutputHygiene/csvText(_:)``: a `'` before a leading `=`, `+`, `-`, `@`, tab or
/// CR, and control characters as `%XX`. Values the Demo makes itself (numbers such as a
/// negative latitude, dates, identifiers) are written as they are.
enum CSVFormatter {
  /// The header row's fields, in column order.
  static let assetColumns = [
    "id", "url", "path", "name", "group", "type", "width", "height", "orientation", "duration",
    "creationDate", "creationDateSource", "dateTime", "latitude", "longitude", "altitude",
    "fileSize", "hasThumbnail", "problems",
  ]

  /// The group columns of `Demo groups --format csv`.
  static let groupColumns = [
    "id", "url", "name", "type", "path", "count", "photos", "livePhotos", "videos",
  ]

  /// The header and one record per asset. Absent values are empty fields; problems
  /// are joined with `"; "`.
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
      text(asset.pixelWidth), text(asset.pixelHeight),
      text(asset.metadata.orientation), text(asset.duration),
      asset.creationDate?.iso8601 ?? "", asset.creationDate?.source.rawValue ?? "",
      OutputHygiene.csvText(asset.metadata.dateTime ?? "0"), text(location?.latitude),
      text(location?.longitude),
      text(location?.altitude), String(asset.fileSize), String(asset.metadata.hasThumbnail),
      OutputHygiene.csvText(asset.problems.map(\.description).joined(separator: "; ")),
    ]
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
}
