/// Text columns for people: widths measured in terminal columns (CJK counts two), a
/// rule under the header, two spaces between columns, no trailing spaces, and no line
/// wider than ``maximumWidth`` when one is set (see ``ColumnFit``).
struct TextTable {
  /// How a column's cells line up.
  enum Alignment {
    /// Text starts at the column's left edge.
    case left
    /// Text ends at the column's right edge (numbers).
    case right
  }

  /// Where a cell too wide for its column is cut.
  enum Truncation {
    /// In the middle, so that the end (a file's extension) stays visible.
    case middle
    /// At the end.
    case end
  }

  /// The header cells.
  var header: [String]
  /// How each column lines up; missing entries mean `.left`.
  var alignments: [Alignment] = []
  /// Where each column's cells are cut; missing entries mean `.end`.
  var truncations: [Truncation] = []
  /// Which columns give way, and in what order, when the lines would be too wide.
  var fit = ColumnFit()
  /// The widest a line may be, in terminal columns; `nil` for no limit (cells are then
  /// never cut).
  var maximumWidth: Int?
  /// The body rows; each has as many cells as the header.
  var rows: [[String]] = []

  /// The table as lines, each ending in a newline.
  ///
  /// - Complexity: O(*n*) in the total length of the cells.
  func render() -> String {
    let cells = ([header] + rows).map { $0.map(OutputHygiene.tableCell) }
    let widths = layout(natural: TextTable.widths(of: cells, columns: header.count))
    var text = line(cells[0], widths)
    text += rule(widths)
    for row in cells.dropFirst() { text += line(row, widths) }
    return text
  }

  /// The width of each column, `nil` for a dropped one, given the widest cell of each:
  /// ``fit`` applied to ``maximumWidth``.
  func layout(natural: [Int]) -> [Int?] {
    fit.widths(natural: natural, limit: maximumWidth)
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

  /// The line of dashes under the header.
  func rule(_ widths: [Int?]) -> String {
    line(widths.map { $0.map { String(repeating: "-", count: $0) } ?? "" }, widths)
  }

  /// One line of the table: the cells (already made printable) of the columns kept,
  /// padded to `widths`; with a ``maximumWidth``, a cell wider than its column is cut
  /// there (a cell of a row after the widths were chosen can be), without one it pushes
  /// the rest of its row to the right.
  func line(_ row: [String], _ widths: [Int?]) -> String {
    var parts: [String] = []
    for (column, width) in widths.enumerated() {
      guard let width else { continue }
      var cell = column < row.count ? row[column] : ""
      if maximumWidth != nil {
        switch column < truncations.count ? truncations[column] : .end {
        case .middle: cell = DisplayWidth.truncatedMiddle(cell, to: width)
        case .end: cell = DisplayWidth.truncatedEnd(cell, to: width)
        }
      }
      switch column < alignments.count ? alignments[column] : .left {
      case .left: parts.append(DisplayWidth.padded(cell, to: width))
      case .right: parts.append(DisplayWidth.rightAligned(cell, to: width))
      }
    }
    var text = parts.joined(separator: "  ")
    while text.last == " " { text.removeLast() }
    return text + "\n"
  }
}

/// How a table's columns give way when its lines would be wider than the limit.
///
/// First, whole columns are dropped, in ``dropping`` order, until the table fits with
/// every column that may be narrowed at its ``narrowing`` minimum. Then the columns that
/// may be narrowed are, in ``narrowing`` order, each as far as needed and no further than
/// its minimum. If the table is still too wide (a limit narrower than the minimums of the
/// columns nothing drops), the first column that may be narrowed takes what is left, at
/// least one column; a column that is neither dropped nor narrowed keeps its width.
struct ColumnFit {
  /// The columns that may be narrowed, in the order they are, with the narrowest each
  /// may become (a column whose widest cell is narrower stays at that width).
  var narrowing: [(column: Int, minimum: Int)] = []
  /// Sets of columns dropped together, in the order they are dropped.
  var dropping: [[Int]] = []

  /// The width of each column (`nil`: dropped) for columns whose widest cells are
  /// `natural`, in lines of at most `limit` columns (no limit when `nil`).
  func widths(natural: [Int], limit: Int?) -> [Int?] {
    var widths: [Int?] = natural
    guard let limit else { return widths }
    let minimums = Dictionary(narrowing.map { ($0.column, $0.minimum) }) { first, _ in first }
    func total(_ widths: [Int?]) -> Int {
      let kept = widths.compactMap { $0 }
      return kept.reduce(0, +) + 2 * max(0, kept.count - 1)
    }
    func narrowest(_ widths: [Int?]) -> [Int?] {
      widths.enumerated().map { column, width in
        width.map { width in minimums[column].map { min($0, width) } ?? width }
      }
    }
    for columns in dropping where total(narrowest(widths)) > limit {
      for column in columns where column < widths.count { widths[column] = nil }
    }
    for (column, minimum) in narrowing where column < widths.count {
      let excess = total(widths) - limit
      guard excess > 0, let width = widths[column] else { continue }
      widths[column] = max(min(minimum, width), width - excess)
    }
    let excess = total(widths) - limit
    if excess > 0,
      let first = narrowing.first(where: { $0.column < widths.count && widths[$0.column] != nil }),
      let width = widths[first.column]
    {
      widths[first.column] = max(1, width - excess)
    }
    return widths
  }
}
