import FoundationEssentials
import GroupEnumeratorCore

/// The `--format table` output: one row per asset, then a summary line.
///
/// With a ``maximumWidth`` (the terminal's width, or `COLUMNS`), no line is wider: names
/// and album names are cut in the middle with `…` (the extension stays), then columns
/// are dropped, then narrowed, in the order ``assetFit`` and ``groupFit`` give.
struct TableFormatter {
  /// The language of the headers, group names and summary.
  var strings: Strings
  /// The widest a line of a table may be, in terminal columns; `nil` for no limit.
  var maximumWidth: Int?

  /// The asset table's columns, as ``row(_:)`` gives its cells.
  enum AssetColumn: Int {
    case name, group, taken, source, dimensions, length, gps, problems
  }

  /// How the asset table fits a narrow terminal: names are shortened first (to 13
  /// columns), then album names (to 10), problems (to 8) and date sources (to 4); when
  /// even that is too wide, columns are dropped first to last: Length, Dimensions, GPS,
  /// Group, Problems, then Taken with its Source; a name left alone takes the whole width.
  static let assetFit = ColumnFit(
    narrowing: [
      (AssetColumn.name.rawValue, 13), (AssetColumn.group.rawValue, 10),
      (AssetColumn.problems.rawValue, 8), (AssetColumn.source.rawValue, 4),
    ],
    dropping: [
      [AssetColumn.length.rawValue], [AssetColumn.dimensions.rawValue],
      [AssetColumn.gps.rawValue], [AssetColumn.group.rawValue], [AssetColumn.problems.rawValue],
      [AssetColumn.taken.rawValue, AssetColumn.source.rawValue],
    ])

  /// How the group table fits a narrow terminal. Dropped first to last: Type, URL (which
  /// is only useful whole), Live Photos, Videos, Photos; then the name is narrowed to 10
  /// columns, and below that only when it is the last column left.
  static let groupFit = ColumnFit(narrowing: [(0, 10)], dropping: [[1], [5], [3], [4], [2]])

  /// A formatter whose tables have no width limit.
  init(strings: Strings, maximumWidth: Int? = nil) {
    self.strings = strings
    self.maximumWidth = maximumWidth
  }

  /// The asset table, the summary, the count of other files, and a line per folder that
  /// could not be listed.
  func format(_ contents: AssetsLibrary.Contents) -> String {
    format(
      assets: contents.assets, otherFiles: contents.otherFiles.count,
      folderProblems: contents.folderProblems)
  }

  /// The asset table, the summary, and a line per folder that could not be listed.
  func format(
    assets: [Asset], otherFiles: Int = 0, folderProblems: [LibraryPath: AssetProblem] = [:]
  ) -> String {
    var table = assetTable
    table.rows = assets.map(row)
    return table.render()
      + footer(
        assets: assets.count, videos: assets.count { $0.type == .video },
        withProblems: assets.count { !$0.problems.isEmpty }, otherFiles: otherFiles,
        folderProblems: folderProblems.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) })
  }

  /// The asset table's header, alignments and fitting, without rows.
  var assetTable: TextTable {
    var table = TextTable(header: strings.assetColumns)
    table.alignments = [.left, .left, .left, .left, .left, .right, .left, .left]
    table.truncations = [.middle, .end, .end, .end, .end, .end, .end, .end]
    table.fit = TableFormatter.assetFit
    table.maximumWidth = maximumWidth
    return table
  }

  /// What follows the asset rows: an empty line, the summary, a line counting the other
  /// files when there are any (`3 other files not listed (--include-other)`, or that they
  /// are listed), and a line per folder that could not be listed (in the order given),
  /// each cut with `…` at ``maximumWidth`` (the whole message is also on standard error).
  func footer(
    assets: Int, videos: Int, withProblems: Int, otherFiles: Int = 0,
    listsOtherFiles: Bool = false, folderProblems: [(path: LibraryPath, problem: AssetProblem)]
  ) -> String {
    var text = "\n"
    text += fitted(
      strings.summary(photos: assets - videos, videos: videos, withProblems: withProblems))
    if otherFiles > 0 {
      text += fitted(strings.otherFiles(otherFiles, listed: listsOtherFiles))
    }
    for (path, problem) in folderProblems {
      text += fitted(
        OutputHygiene.tableCell(strings.folderProblem(path.escaped, problem.description)))
    }
    return text
  }

  /// `line` cut at ``maximumWidth``, then a newline.
  private func fitted(_ line: String) -> String {
    guard let maximumWidth else { return line + "\n" }
    return DisplayWidth.truncatedEnd(line, to: maximumWidth) + "\n"
  }

  /// The cells of one asset: name (both file names for a Live Photo:
  /// `IMG_1.HEIC, IMG_1.MOV`; a motion photo's one file once), group, taken date, the
  /// date's source, pixel dimensions, length, GPS, problems (see ``problems(_:)``).
  func row(_ asset: Asset) -> [String] {
    let group = AssetGroup(kind: asset.group, path: asset.groupPath)
    return [
      TableFormatter.fileNames(of: asset).joined(separator: ", "),
      group.localizedName(in: strings.language),
      takenDate(asset.creationDate),
      asset.creationDate.map { strings.dateSource($0.source) } ?? "-",
      size(width: asset.pixelWidth, height: asset.pixelHeight),
      asset.type == .photo ? "-" : length(asset.duration),
      gps(asset.location),
      problems(asset.problems),
    ]
  }

  /// The names the Name column shows: the asset's file, or a Live Photo's still and movie
  /// (`IMG_1.HEIC`, `IMG_1.MOV`); a motion photo's movie (a byte range of the still's file)
  /// adds no name, and sidecars are not named.
  static func fileNames(of asset: Asset) -> [String] {
    guard asset.type == .livePhoto else { return [asset.name] }
    return asset.resources.filter { $0.role != .sidecar && $0.byteRange == nil }.map(\.name)
  }

  /// The cells of a file that is not an asset (`--include-other`): its path from the
  /// library root (it belongs to no group), `other` in the Group column, `-` for what
  /// only media have, and its reason's code in the Problems column (`notMedia`).
  func row(_ file: OtherFile) -> [String] {
    [file.path.escaped, strings.otherFileGroup, "-", "-", "-", "-", "-", file.reason.rawValue]
  }

  /// The Problems cell: `-` when there is none, else the first problem's code, and
  /// `+N` for the N others (`malformed +1`); the messages are in `--format json`.
  func problems(_ problems: [AssetProblem]) -> String {
    guard let first = problems.first else { return "-" }
    let others = problems.count - 1
    return others > 0 ? "\(first.code.rawValue) +\(others)" : first.code.rawValue
  }

  /// `yyyy/MM/dd HH:mm:ss` from the date's wall-clock fields, as the file recorded them:
  /// the camera's local time, or UTC for a movie header or the file's modification time,
  /// which the Source column names (`file time (UTC)`), as JSON's `creationDate` and its
  /// source give them.
  func takenDate(_ date: CaptureDate?) -> String {
    guard let date else { return strings.unknownDate }
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
    return DecimalText.fiveDecimals(location.latitude) + ", "
      + DecimalText.fiveDecimals(location.longitude)
  }

  /// The groups table and a count line, for `Demo groups`.
  func format(groups: [AssetGroup]) -> String {
    var table = TextTable(header: strings.groupColumns)
    table.alignments = [.left, .left, .right, .right, .right, .left]
    table.truncations = [.middle, .end, .end, .end, .end, .end]
    table.fit = TableFormatter.groupFit
    table.maximumWidth = maximumWidth
    table.rows = groups.map { group in
      [
        group.localizedName(in: strings.language), group.kind.rawValue,
        String(group.counts[.photo] ?? 0), String(group.counts[.livePhoto] ?? 0),
        String(group.counts[.video] ?? 0), group.url.absoluteString,
      ]
    }
    return table.render() + "\n" + fitted(strings.groupSummary(count: groups.count))
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
