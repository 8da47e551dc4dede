import Foundation
import GroupEnumerator

/// Text columns for people: widths measured in terminal columns (CJK counts two), a
/// rule under the header, two spaces between columns, no trailing spaces.
struct TextTable {
  /// How a column's cells line up.
  enum Alignment {
    /// Text starts at the column's left edge.
    case left
    /// Text ends at the column's right edge (numbers).
    case right
  }

  /// The header cells.
  var header: [String]
  /// How each column lines up; missing entries mean `.left`.
  var alignments: [Alignment] = []
  /// The body rows; each has as many cells as the header.
  var rows: [[String]] = []

  /// The table as lines, each ending in a newline.
  ///
  /// - Complexity: O(*n*) in the total length of the cells.
  func render() -> String {
    let cells = ([header] + rows).map { $0.map(OutputHygiene.tableCell) }
    let widths = TextTable.widths(of: cells, columns: header.count)
    var text = line(cells[0], widths)
    text += line(widths.map { String(repeating: "-", count: $0) }, widths)
    for row in cells.dropFirst() { text += line(row, widths) }
    return text
  }

  /// The widest cell of each of the first `columns` columns of `rows`, in terminal
  /// columns.
  ///
  /// - Complexity: O(*n*) in the total length of the cells.
  static func widths(of rows: [[String]], columns: Int) -> [Int] {
    var widths = [Int](repeating: 0, count: columns)
    for row in rows {
      for (column, cell) in row.enumerated() where column < widths.count {
        widths[column] = max(widths[column], DisplayWidth.of(cell))
      }
    }
    return widths
  }

  /// One line of the table: the cells (already made printable) padded to `widths`.
  func line(_ row: [String], _ widths: [Int]) -> String {
    var parts: [String] = []
    for (column, width) in widths.enumerated() {
      let cell = column < row.count ? row[column] : ""
      let alignment = column < alignments.count ? alignments[column] : .left
      switch alignment {
      case .left: parts.append(DisplayWidth.padded(cell, to: width))
      case .right: parts.append(DisplayWidth.rightAligned(cell, to: width))
      }
    }
    var text = parts.joined(separator: "  ")
    while text.last == " " { text.removeLast() }
    return text + "\n"
  }
}

/// The `--format table` output: one row per asset, then a summary line.
struct TableFormatter {
  /// The language of the headers, group names and summary.
  var strings: Strings

  /// The asset table, the summary, and a line per folder that could not be listed.
  func format(_ contents: AssetsLibrary.Contents) -> String {
    format(assets: contents.assets, folderProblems: contents.folderProblems)
  }

  /// The asset table, the summary, and a line per folder that could not be listed.
  func format(assets: [Asset], folderProblems: [LibraryPath: AssetProblem] = [:]) -> String {
    var table = assetTable
    table.rows = assets.map(row)
    return table.render()
      + footer(
        assets: assets.count, videos: assets.count { $0.type == .video },
        withProblems: assets.count { !$0.problems.isEmpty },
        folderProblems: folderProblems.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) })
  }

  /// The asset table's header and alignments, without rows.
  var assetTable: TextTable {
    var table = TextTable(header: strings.assetColumns)
    table.alignments = [.left, .left, .left, .left, .left, .right, .left]
    return table
  }

  /// What follows the asset rows: an empty line, the summary, and a line per folder that
  /// could not be listed (in the order given).
  func footer(
    assets: Int, videos: Int, withProblems: Int,
    folderProblems: [(path: LibraryPath, problem: AssetProblem)]
  ) -> String {
    var text = "\n"
    text +=
      strings.summary(photos: assets - videos, videos: videos, withProblems: withProblems)
      + "\n"
    for (path, problem) in folderProblems {
      text += OutputHygiene.tableCell(
        strings.folderProblem(path.escaped, problem.description))
      text += "\n"
    }
    return text
  }

  /// The cells of one asset: name (both file names for a Live Photo:
  /// `IMG_1.HEIC, IMG_1.MOV`), group, taken date, the date's source, size, length, GPS.
  func row(_ asset: Asset) -> [String] {
    let group = AssetGroup(kind: asset.group, path: asset.groupPath)
    let name =
      asset.type == .livePhoto
      ? asset.resources.filter { $0.role != .sidecar }.map(\.name).joined(separator: ", ")
      : asset.name
    return [
      name,
      group.localizedName(in: strings.language),
      takenDate(asset.creationDate),
      asset.creationDate.map { strings.dateSource($0.source) } ?? "-",
      size(width: asset.pixelWidth, height: asset.pixelHeight),
      asset.type == .photo ? "-" : length(asset.duration),
      gps(asset.location),
    ]
  }

  /// `yyyy/MM/dd HH:mm:ss` from the date's wall-clock fields, as the camera wrote
  /// them. A date that only comes from the file's modification time is not when the
  /// shot was taken, so it shows as unknown.
  func takenDate(_ date: CaptureDate?) -> String {
    guard let date, !date.source.isFileTime else { return strings.unknownDate }
    return TableFormatter.pad(date.year, 4) + "/" + TableFormatter.pad(date.month, 2) + "/"
      + TableFormatter.pad(date.day, 2) + " " + TableFormatter.pad(date.hour, 2) + ":"
      + TableFormatter.pad(date.minute, 2) + ":" + TableFormatter.pad(date.second, 2)
  }

  /// A movie's length rounded to the second: `00:07`, `12:34`, `1:02:03`; `-` when it
  /// is unknown, negative or not finite.
  func length(_ seconds: Double?) -> String {
    guard let seconds, seconds.isFinite, seconds >= 0,
      let total = Int(exactly: seconds.rounded())
    else { return "-" }
    let hours = total / 3600
    let minutes = total % 3600 / 60
    let rest = TableFormatter.pad(total % 60, 2)
    guard hours > 0 else { return "\(TableFormatter.pad(minutes, 2)):\(rest)" }
    return "\(hours):\(TableFormatter.pad(minutes, 2)):\(rest)"
  }

  /// `4032 x 3024`, or `-` when either side is unknown.
  func size(width: Int?, height: Int?) -> String {
    guard let width, let height else { return "-" }
    return "\(width) x \(height)"
  }

  /// `35.68950, 139.69171`, or `-` without a location.
  func gps(_ location: Location?) -> String {
    guard let location else { return "-" }
    return String(format: "%.5f, %.5f", location.latitude, location.longitude)
  }

  /// The groups table and a count line, for `Demo groups`.
  func format(groups: [AssetGroup]) -> String {
    var table = TextTable(header: strings.groupColumns)
    table.alignments = [.left, .left, .right, .right, .right, .left]
    table.rows = groups.map { group in
      [
        group.localizedName(in: strings.language), group.kind.rawValue,
        String(group.counts[.photo] ?? 0), String(group.counts[.livePhoto] ?? 0),
        String(group.counts[.video] ?? 0), group.url.absoluteString,
      ]
    }
    return table.render() + "\n" + strings.groupSummary(count: groups.count) + "\n"
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
