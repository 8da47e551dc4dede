import GroupEnumeratorCore

/// What a listing knows once every asset is out: the files that are not assets and the
/// folders that could not be read.
struct ListingEnd: Sendable {
  /// Folders that could not be listed, sorted by path, with the reason.
  var folderProblems: [(path: LibraryPath, problem: AssetProblem)]
  /// The files that are not assets, sorted by path.
  var otherFiles: [OtherFile] = []
  /// Whether ``otherFiles`` are listed after the assets (`--include-other`), each with
  /// type `other`; else the table only counts them.
  var listsOtherFiles = false

  /// The other files to list: all of them with `--include-other`, else none.
  var listedOtherFiles: ArraySlice<OtherFile> {
    listsOtherFiles ? otherFiles[...] : []
  }
}

/// One output format of the listing, written as the assets arrive, in order.
///
/// ``prepare(_:)`` runs on the worker that read the asset, in parallel with the others;
/// ``write(_:to:)`` runs once per asset, in order, one at a time. Nothing but a bounded
/// amount of state is kept between assets, so memory does not grow with the output.
protocol ListingWriter: Sendable {
  /// What ``prepare(_:)`` makes of an asset.
  associatedtype Item: Sendable
  /// Writes what comes before the first asset (a CSV header).
  mutating func begin(to stream: inout some ByteOutputStream)
  /// Formats one asset, on any thread.
  func prepare(_ asset: Asset) -> Item
  /// Writes one prepared asset.
  mutating func write(_ item: Item, to stream: inout some ByteOutputStream)
  /// Writes what comes after the last asset.
  mutating func finish(_ end: ListingEnd, to stream: inout some ByteOutputStream)
}

/// `--format json`: one array, one indented object per asset (docs/Formats.md); the same bytes
/// ``JSONFormatter/format(assets:)`` makes from the whole list. With `--include-other`, an
/// object per other file (type `other`) follows the assets in the same array.
struct JSONListingWriter: ListingWriter {
  private var count = 0

  func begin(to stream: inout some ByteOutputStream) {}

  func prepare(_ asset: Asset) -> JSONText { JSONFormatter.preparedElement(for: asset) }

  mutating func write(_ item: JSONText, to stream: inout some ByteOutputStream) {
    stream.write(count == 0 ? "[\n" : ",\n")
    item.withBytes { stream.write(contentsOf: $0) }
    count += 1
  }

  mutating func finish(_ end: ListingEnd, to stream: inout some ByteOutputStream) {
    for file in end.listedOtherFiles {
      stream.write(count == 0 ? "[\n" : ",\n")
      stream.write(bytes: JSONFormatter.element(for: file))
      count += 1
    }
    stream.write(count == 0 ? "[]\n" : "\n]\n")
  }
}

/// `--format ndjson`: one compact JSON object per line, each asset with the keys of
/// `--format json`, then (with `--include-other`) one line per other file, as in
/// `--format json`, then one line per folder that could not be read:
/// `{"type":"folderProblem","path":…,"problem":…}` (no asset has that `type`).
struct NDJSONListingWriter: ListingWriter {
  func begin(to stream: inout some ByteOutputStream) {}

  func prepare(_ asset: Asset) -> JSONText { JSONFormatter.preparedLine(for: asset) }

  func write(_ item: JSONText, to stream: inout some ByteOutputStream) {
    item.withBytes { stream.write(contentsOf: $0) }
  }

  func finish(_ end: ListingEnd, to stream: inout some ByteOutputStream) {
    for file in end.listedOtherFiles { stream.write(bytes: JSONFormatter.line(for: file)) }
    for (path, problem) in end.folderProblems {
      stream.write(bytes: JSONFormatter.folderProblemLine(path: path, problem: problem))
    }
  }
}

/// `--format csv`: the header, then one record per asset, then (with `--include-other`)
/// one per other file (``CSVFormatter/fields(for:)-(OtherFile)``).
struct CSVListingWriter: ListingWriter {
  func begin(to stream: inout some ByteOutputStream) {
    stream.write(CSVFormatter.record(CSVFormatter.assetColumns))
  }

  func prepare(_ asset: Asset) -> String { CSVFormatter.record(CSVFormatter.fields(for: asset)) }

  func write(_ item: String, to stream: inout some ByteOutputStream) { stream.write(item) }

  func finish(_ end: ListingEnd, to stream: inout some ByteOutputStream) {
    for file in end.listedOtherFiles {
      stream.write(CSVFormatter.record(CSVFormatter.fields(for: file)))
    }
  }
}

/// `--format table`: column widths come from the header and the first ``window`` rows,
/// which are held until then, fitted to the formatter's width limit; later rows use those
/// widths: a wider cell is cut with `…` when there is a limit, and pushes the rest of its
/// own row to the right when there is none, rather than hold every row in memory. With
/// `--include-other` a row per other file follows the assets
/// (``TableFormatter/row(_:)-(OtherFile)``); the footer counts them either way.
struct TableListingWriter: ListingWriter {
  /// One asset's row and what the summary counts.
  struct Row: Sendable {
    var cells: [String]
    var isVideo: Bool
    var hasProblems: Bool
  }

  /// How many rows decide the column widths.
  static let window = 1000

  let formatter: TableFormatter
  private let table: TextTable
  private var held: [[String]] = []
  private var widths: [Int?]?
  private var assets = 0
  private var videos = 0
  private var withProblems = 0

  /// A writer in `strings`' language whose lines are at most `maximumWidth` columns
  /// (`nil`: no limit).
  init(strings: Strings, maximumWidth: Int? = nil) {
    formatter = TableFormatter(strings: strings, maximumWidth: maximumWidth)
    table = formatter.assetTable
  }

  func begin(to stream: inout some ByteOutputStream) {}

  func prepare(_ asset: Asset) -> Row {
    Row(
      cells: formatter.row(asset).map(OutputHygiene.tableCell),
      isVideo: asset.type == .video, hasProblems: !asset.problems.isEmpty)
  }

  mutating func write(_ item: Row, to stream: inout some ByteOutputStream) {
    assets += 1
    if item.isVideo { videos += 1 }
    if item.hasProblems { withProblems += 1 }
    add(item.cells, to: &stream)
  }

  /// Writes a row, or holds it while the column widths are not decided yet.
  private mutating func add(_ cells: [String], to stream: inout some ByteOutputStream) {
    if let widths {
      stream.write(table.line(cells, widths))
      return
    }
    held.append(cells)
    if held.count >= TableListingWriter.window { flushHeld(to: &stream) }
  }

  mutating func finish(_ end: ListingEnd, to stream: inout some ByteOutputStream) {
    for file in end.listedOtherFiles {
      add(formatter.row(file).map(OutputHygiene.tableCell), to: &stream)
    }
    if widths == nil { flushHeld(to: &stream) }
    stream.write(
      formatter.footer(
        assets: assets, videos: videos, withProblems: withProblems,
        otherFiles: end.otherFiles.count, listsOtherFiles: end.listsOtherFiles,
        folderProblems: end.folderProblems))
  }

  private mutating func flushHeld(to stream: inout some ByteOutputStream) {
    let header = table.header.map(OutputHygiene.tableCell)
    let widths = table.layout(natural: TextTable.widths(of: [header] + held, columns: header.count))
    self.widths = widths
    stream.write(table.line(header, widths))
    stream.write(table.rule(widths))
    for row in held { stream.write(table.line(row, widths)) }
    held = []
  }
}
