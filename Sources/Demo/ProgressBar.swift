import GroupEnumeratorCore

/// The percentage bar drawn on standard error while the library is read:
/// `Loading photos (42%) [########........] 420/1000`.
///
/// It is created only when standard error is a terminal. Each redraw starts with `\r`
/// and ends by erasing the rest of the line; redraws are coalesced to at most one per
/// ``minimumInterval``, except the first and the final one (`current == total`).
@MainActor final class ProgressBar {
  /// What the bar counts, which its label names.
  enum Activity: Sendable {
    /// Assets read: `Loading photos (42%)`.
    case loading
    /// Pictures drawn for `--format html`: `Drawing pictures (42%)`.
    case drawing
  }

  /// The language of the label.
  var strings = Strings(language: .english)
  /// What the bar counts now; set it after ``clear()`` to start counting something else.
  var activity = Activity.loading
  /// The shortest time between two redraws.
  let minimumInterval: Duration

  private let write: (String) -> Void
  private let columns: () -> Int
  private let now: () -> ContinuousClock.Instant
  private var lastDraw: ContinuousClock.Instant?
  private var lastLine: String?

  /// Creates a bar.
  ///
  /// - Parameters:
  ///   - columns: The terminal's current width, asked at every redraw.
  ///   - minimumInterval: The shortest time between two redraws.
  ///   - now: The clock (injectable for tests).
  ///   - write: Writes text to the terminal, unbuffered.
  init(
    columns: @escaping () -> Int, minimumInterval: Duration = .milliseconds(50),
    now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now },
    write: @escaping (String) -> Void
  ) {
    self.columns = columns
    self.minimumInterval = minimumInterval
    self.now = now
    self.write = write
  }

  /// Shows `current` of `total`, unless the last redraw was too recent.
  func update(current: Int, total: Int) {
    let instant = now()
    let isFinal = current >= total
    if !isFinal, let lastDraw, lastDraw.duration(to: instant) < minimumInterval { return }
    let line = ProgressBar.render(
      current: current, total: total, columns: columns(), strings: strings, activity: activity)
    lastDraw = instant
    guard line != lastLine else { return }
    lastLine = line
    write("\r" + line + "\u{1B}[K")
  }

  /// Erases the bar and puts the cursor back at the start of the line.
  func clear() {
    guard lastLine != nil else { return }
    lastLine = nil
    lastDraw = nil
    write("\r\u{1B}[K")
  }

  /// The bar's text for a terminal `columns` wide, never wider than `columns - 1` (so
  /// the cursor never wraps): label, bar and counter; without the bar when fewer than
  /// four cells are left for it; then the label alone; then just the percentage.
  ///
  /// `total` 0 (an empty library) reads as complete: 100%, a full bar, `0/0`.
  static func render(
    current: Int, total: Int, columns: Int, strings: Strings, activity: Activity = .loading
  ) -> String {
    let total = max(total, 0)
    let current = min(max(current, 0), total)
    let percent = total == 0 ? 100 : Int(Double(current) * 100 / Double(total))
    let label =
      activity == .loading ? strings.loading(percent: percent) : strings.drawing(percent: percent)
    let counter = "\(current)/\(total)"
    let available = max(columns, 1) - 1
    let labelWidth = DisplayWidth.of(label)
    let counterWidth = DisplayWidth.of(counter)
    let barWidth = available - labelWidth - counterWidth - 4
    if barWidth >= 4 {
      let filled =
        total == 0
        ? barWidth : min(barWidth, Int(Double(current) * Double(barWidth) / Double(total)))
      let bar =
        String(repeating: "#", count: filled)
        + String(repeating: ".", count: barWidth - filled)
      return "\(label) [\(bar)] \(counter)"
    }
    if labelWidth + 1 + counterWidth <= available { return "\(label) \(counter)" }
    if labelWidth <= available { return label }
    return String("\(percent)%".prefix(available))
  }
}
