/// The problems of one file, bounded: the first ``maximumKept`` are kept as found, and
/// every later one only adds to a count, shown as one last problem, "…and N more
/// problems".
///
/// Every reader records its problems through a log (``MediaMetadata/report(_:)`` or a
/// log of its own), so a file that holds a million bad chunks costs a few problems of
/// memory, not a million, however long the walk that finds them.
struct ProblemLog: Sendable, Hashable {
  /// The most problems one file keeps (before the closing count). A real file has at
  /// most a handful: 4 in the shared corpus, 5 in its hostile set.
  static let maximumKept = 8

  /// The problems kept, in the order found.
  private(set) var kept: [AssetProblem] = []
  /// How many problems were found after the first ``maximumKept`` and not kept.
  private(set) var omitted = 0
  /// The budgets that tripped (each at most once per walk), kept apart so that the cap
  /// never hides one.
  private(set) var trippedBudgets: [AssetProblem] = []
  /// The kind of the first problem not kept, which the closing count takes.
  private var omittedCode = AssetProblem.Code.malformed

  /// Creates an empty log.
  init() {}

  /// Creates a log holding `problems` as they are, uncapped (what a caller assigned to
  /// ``MediaMetadata/problems`` directly).
  init(unchecked problems: [AssetProblem]) { kept = problems }

  /// Recreates a log exactly as another one was (the index's stored form,
  /// ``StoredResult``).
  init(
    kept: [AssetProblem], omitted: Int, firstOmittedCode: AssetProblem.Code,
    trippedBudgets: [AssetProblem]
  ) {
    self.kept = kept
    self.omitted = omitted
    self.omittedCode = firstOmittedCode
    self.trippedBudgets = trippedBudgets
  }

  /// The kind of the first problem not kept (what the closing count takes).
  var firstOmittedCode: AssetProblem.Code { omittedCode }

  /// Whether no problem was found.
  var isEmpty: Bool { kept.isEmpty && omitted == 0 && trippedBudgets.isEmpty }

  /// Records a problem: kept while fewer than ``maximumKept`` are, otherwise counted.
  mutating func append(_ problem: AssetProblem) {
    if kept.count < Self.maximumKept {
      kept.append(problem)
    } else {
      if omitted == 0 { omittedCode = problem.code }
      omitted += 1
    }
  }

  /// Records that a per-file budget tripped: always shown, after the other problems
  /// (a tripped budget ends a walk, so it is the last thing found). At most
  /// ``maximumKept`` are kept, like other problems.
  mutating func appendTrippedBudget(_ problem: AssetProblem) {
    if trippedBudgets.count < Self.maximumKept {
      trippedBudgets.append(problem)
    } else {
      append(problem)
    }
  }

  /// Records each of `problems` in order.
  mutating func append(contentsOf problems: some Sequence<AssetProblem>) {
    for problem in problems { append(problem) }
  }

  /// Records every problem of `other`, its omitted ones included.
  mutating func append(contentsOf other: ProblemLog) {
    append(contentsOf: other.kept)
    for problem in other.trippedBudgets { appendTrippedBudget(problem) }
    if omitted == 0, other.omitted > 0 { omittedCode = other.omittedCode }
    omitted += other.omitted
  }

  /// The problems kept, then (when any were not kept) one that says how many more there
  /// were, then the budgets that tripped.
  var problems: [AssetProblem] {
    guard omitted > 0 else { return kept + trippedBudgets }
    let noun = omitted == 1 ? "problem" : "problems"
    return kept + [
      AssetProblem(
        omittedCode,
        "…and \(omitted) more \(noun) in this file, not listed (at most "
          + "\(Self.maximumKept) are kept per file).")
    ] + trippedBudgets
  }
}
