/// Writes JSON text straight into a string, with no tree of values in between.
///
/// Objects keep their keys in the order they are written, nest by two spaces per level,
/// and open on the line of their key; empty objects and arrays are `{}` and `[]`.
/// Foundation's encoders are not used: they reorder keys and escape `/`.
///
/// Inside ``object(_:)`` write each member as ``key(_:)`` followed by one value; inside
/// ``array(_:)`` write the values alone. The writer puts the commas, newlines and
/// indentation in.
struct JSONWriter {
  /// The text written so far.
  private(set) var text: String
  /// The indentation level of the first value's first line.
  private let baseLevel: Int
  /// How many containers are open.
  private var depth = 0
  /// How many members or elements the innermost open container has so far.
  private var count = 0
  /// Whether a key was just written, so that the next value follows it on its line.
  private var afterKey = false

  /// A writer whose first value starts at indentation `level`, its closing line
  /// indented to match.
  ///
  /// - Parameter capacity: The number of UTF-8 bytes to reserve room for.
  init(level: Int = 0, capacity: Int = 0) {
    text = ""
    text.reserveCapacity(capacity)
    baseLevel = level
  }

  /// Appends `raw` as it is, for text between top-level values.
  mutating func append(_ raw: String) {
    text += raw
  }

  /// Starts the next member of the open object.
  mutating func key(_ name: String) {
    startLine()
    JSONWriter.appendQuoted(name, to: &text)
    text += ": "
    afterKey = true
  }

  mutating func null() {
    startValue()
    text += "null"
  }

  mutating func bool(_ value: Bool) {
    startValue()
    text += value ? "true" : "false"
  }

  /// `value`, or `null` when it is `nil`.
  mutating func integer(_ value: (some BinaryInteger)?) {
    startValue()
    if let value { text += String(value) } else { text += "null" }
  }

  /// `value`, or `null` when it is `nil` or not finite (JSON has no NaN or infinity).
  mutating func number(_ value: Double?) {
    startValue()
    // Swift's description is the shortest text that reads back as the same Double,
    // and its forms (`12.5`, `1e-05`, `-0.0`) are all valid JSON numbers.
    if let value, value.isFinite { text += value.description } else { text += "null" }
  }

  /// `value` as a JSON string (see ``quoted(_:)``), or `null` when it is `nil`.
  mutating func string(_ value: String?) {
    startValue()
    if let value { JSONWriter.appendQuoted(value, to: &text) } else { text += "null" }
  }

  /// An object whose members `body` writes.
  mutating func object(_ body: (inout JSONWriter) -> Void) {
    container(open: "{", close: "}", body)
  }

  /// An array whose elements `body` writes.
  mutating func array(_ body: (inout JSONWriter) -> Void) {
    container(open: "[", close: "]", body)
  }

  private mutating func container(
    open: String, close: String, _ body: (inout JSONWriter) -> Void
  ) {
    startValue()
    text += open
    let outerCount = count
    count = 0
    depth += 1
    body(&self)
    depth -= 1
    if count > 0 {
      text += "\n"
      appendIndent()
    }
    text += close
    count = outerCount
  }

  /// Moves to where the next value goes: after its key, or on a line of its own when it
  /// is an array element.
  private mutating func startValue() {
    if afterKey {
      afterKey = false
    } else if depth > 0 {
      startLine()
    }
  }

  /// Ends the previous member or element, if any, and indents a new line for the next.
  private mutating func startLine() {
    text += count == 0 ? "\n" : ",\n"
    count += 1
    appendIndent()
  }

  private mutating func appendIndent() {
    let level = baseLevel + depth
    text +=
      level < JSONWriter.indents.count
      ? JSONWriter.indents[level] : String(repeating: "  ", count: level)
  }

  /// Indentation for the levels an asset's JSON reaches, made once.
  private static let indents = (0..<8).map { String(repeating: "  ", count: $0) }

  /// `text` as a JSON string: quotes and backslashes escaped, control characters as
  /// `\n`, `\t`… or `\u00XX`; everything else, non-ASCII included, kept as is.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func quoted(_ text: String) -> String {
    var result = ""
    appendQuoted(text, to: &result)
    return result
  }

  /// Appends ``quoted(_:)`` of `text` to `result`; text with nothing to escape (the
  /// usual case) is appended whole.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  static func appendQuoted(_ text: String, to result: inout String) {
    // In UTF-8 these bytes only ever stand for themselves (multi-byte sequences use
    // bytes from 0x80 up), so a byte scan finds exactly the scalars to escape.
    let needsEscaping = text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    result += "\""
    if needsEscaping {
      appendEscaped(text, to: &result)
    } else {
      result += text
    }
    result += "\""
  }

  private static func appendEscaped(_ text: String, to result: inout String) {
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{08}": result += "\\b"
      case "\u{0C}": result += "\\f"
      case "\u{00}"..."\u{1F}":
        let hex = String(scalar.value, radix: 16, uppercase: false)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
  }
}
