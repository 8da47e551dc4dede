/// What was wrong with a box, and where: each case names the box type and its offset.
///
/// The reader turns these into ``AssetProblem`` values with code
/// ``AssetProblem/Code/malformed`` (structure) at its edge; they never escape it.
enum BoxParsingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Fewer bytes remain than a box header needs (8, or 16 with a largesize).
  case truncatedHeader(offset: Int, available: Int)
  /// The declared size is smaller than the header itself (size 2…7, largesize < 16).
  case sizeTooSmall(type: FourCharacterCode, offset: Int, declared: UInt64, minimum: Int)
  /// The declared size runs past the end of the enclosing box or file; the box was read
  /// only as far as `available` bytes.
  case sizeOutOfBounds(type: FourCharacterCode, offset: Int, declared: UInt64, available: Int)
  /// Boxes are nested deeper than the reader follows.
  case nestingTooDeep(type: FourCharacterCode, offset: Int, limit: Int)
  /// The file has more boxes than the reader is willing to walk.
  case tooManyBoxes(limit: Int)
  /// A box's content is shorter than its fields need.
  case contentTooShort(type: FourCharacterCode, offset: Int, needed: Int, available: Int)
  /// A box's content is longer than the reader is willing to load.
  case contentTooLong(type: FourCharacterCode, offset: Int, length: Int, limit: Int)
  /// A full box has a version this reader does not know.
  case unsupportedVersion(type: FourCharacterCode, offset: Int, version: UInt8)
  /// A field holds a value the specification does not allow.
  case invalidField(type: FourCharacterCode, offset: Int, field: String, detail: String)
  /// The bytes could not be read from the file.
  case unreadable(offset: Int, problem: AssetProblem)

  /// A sentence for people naming the box, its offset and what was wrong.
  var description: String {
    switch self {
    case .truncatedHeader(let offset, let available):
      return "Box header at offset \(offset) is cut short: only \(available) of at least 8 bytes "
        + "remain."
    case .sizeTooSmall(let type, let offset, let declared, let minimum):
      return "Box '\(type)' at offset \(offset) declares a size of \(declared) bytes, "
        + "less than its \(minimum)-byte header."
    case .sizeOutOfBounds(let type, let offset, let declared, let available):
      return "Box '\(type)' at offset \(offset) declares \(declared) bytes but only "
        + "\(available) remain in its parent; it was read as truncated."
    case .nestingTooDeep(let type, let offset, let limit):
      return "Box '\(type)' at offset \(offset) is nested more than \(limit) levels deep."
    case .tooManyBoxes(let limit):
      return "The file has more than \(limit) boxes; the rest were not read."
    case .contentTooShort(let type, let offset, let needed, let available):
      return "Box '\(type)' at offset \(offset) has \(available) bytes of content but its "
        + "fields need \(needed)."
    case .contentTooLong(let type, let offset, let length, let limit):
      return "Box '\(type)' at offset \(offset) has \(length) bytes of content, more than the "
        + "\(limit) this reader loads."
    case .unsupportedVersion(let type, let offset, let version):
      return "Box '\(type)' at offset \(offset) has version \(version), which is not 0 or 1."
    case .invalidField(let type, let offset, let field, let detail):
      return "Box '\(type)' at offset \(offset) has an invalid \(field): \(detail)."
    case .unreadable(let offset, let problem):
      return "Reading at offset \(offset) failed: \(problem.message)"
    }
  }

  /// The problem to report on the asset.
  var assetProblem: AssetProblem {
    switch self {
    case .unreadable(_, let problem): return problem
    default: return AssetProblem(.malformed, description)
    }
  }
}
