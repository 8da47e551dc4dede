import FoundationEssentials
@_spi(Demo) import GroupEnumeratorCore

/// Writes JSON text straight into a byte buffer, with no tree of values in between.
///
/// Objects keep their keys in the order they are written, nest by two spaces per level,
/// and open on the line of their key; empty objects and arrays are `{}` and `[]`.
/// Foundation's encoders are not used: they reorder keys and escape `/`.
///
/// Inside ``object(_:)`` write each member as ``key(_:)`` followed by one value; inside
/// ``array(_:)`` write the values alone. The writer puts the commas, newlines and
/// indentation in.
///
/// The buffer holds UTF-8 bytes, not a `String`: appending bytes skips the bookkeeping a
/// `String` does on every append, and the listing appends millions of times.
///
/// Copies of a writer share its buffer: pass a writer `inout`, never by value.
struct JSONWriter {
  /// The UTF-8 text written so far.
  var bytes: [UInt8] { buffer.array }
  /// Where the text goes.
  private let buffer: ByteBuffer
  /// The indentation level of the first value's first line.
  private let baseLevel: Int
  /// How many containers are open.
  private var depth = 0
  /// How many members or elements the innermost open container has so far.
  private var count = 0
  /// Whether a key was just written, so that the next value follows it on its line.
  private var afterKey = false
  /// Whether the text is one line with no spaces between tokens (NDJSON).
  private let isCompact: Bool

  /// A writer whose first value starts at indentation `level`, its closing line
  /// indented to match.
  ///
  /// - Parameters:
  ///   - capacity: The number of UTF-8 bytes to reserve room for.
  ///   - compact: Whether to write everything on one line with no spaces between tokens
  ///     (`level` is then ignored), as NDJSON needs.
  init(level: Int = 0, capacity: Int = 0, compact: Bool = false) {
    buffer = ByteBuffer(capacity: capacity)
    baseLevel = level
    isCompact = compact
  }

  /// The text written, handed over without a copy: the writer must not be used again.
  consuming func finish() -> JSONText { JSONText(buffer: buffer) }

  /// The text written so far.
  var text: String { buffer.withBytes { String(decoding: $0, as: UTF8.self) } }

  /// Appends `raw` as it is, for text between top-level values.
  mutating func append(_ raw: StaticString) {
    buffer.append(raw)
  }

  /// Starts the next member of the open object; `name` needs no escaping.
  mutating func key(_ name: StaticString) {
    afterKey = true
    guard name.hasPointerRepresentation else {
      startLine()
      buffer.append(UInt8(ascii: "\""))
      buffer.append(name)
      buffer.append(isCompact ? "\":" : "\": ")
      return
    }
    // The comma, newline and indentation, the quoted name, the colon and the space that
    // follows it are written in one go (`,\n    "name": `): members are most of the
    // text's tokens.
    let hasComma = count > 0
    count += 1
    let isCompact = isCompact
    let indent = isCompact ? 0 : 2 * (baseLevel + depth)
    let length = name.utf8CodeUnitCount
    buffer.append(atMost: 2 + indent + length + 4) { out in
      var end = 0
      if hasComma {
        out[end] = UInt8(ascii: ",")
        end += 1
      }
      if !isCompact {
        out[end] = UInt8(ascii: "\n")
        (out + end + 1).update(repeating: UInt8(ascii: " "), count: indent)
        end += 1 + indent
      }
      out[end] = UInt8(ascii: "\"")
      (out + end + 1).update(from: name.utf8Start, count: length)
      end += 1 + length
      out[end] = UInt8(ascii: "\"")
      out[end + 1] = UInt8(ascii: ":")
      end += 2
      if !isCompact {
        out[end] = UInt8(ascii: " ")
        end += 1
      }
      return end
    }
  }

  mutating func null() {
    startValue()
    append("null")
  }

  mutating func bool(_ value: Bool) {
    startValue()
    if value { append("true") } else { append("false") }
  }

  /// `value`, or `null` when it is `nil`.
  mutating func integer(_ value: (some BinaryInteger)?) {
    startValue()
    guard let value else { return append("null") }
    if let small = Int64(exactly: value) {
      appendDecimal(small)
    } else {
      var text = String(value)
      text.withUTF8 { buffer.append($0) }
    }
  }

  /// `value`, or `null` when it is `nil` or not finite (JSON has no NaN or infinity).
  mutating func number(_ value: Double?) {
    startValue()
    // Swift's description is the shortest text that reads back as the same Double,
    // and its forms (`12.5`, `1e-05`, `-0.0`) are all valid JSON numbers.
    if let value, value.isFinite {
      var text = value.description
      text.withUTF8 { buffer.append($0) }
    } else {
      append("null")
    }
  }

  /// `value` rounded to `places` decimals (``Location/rounded(_:decimalPlaces:)``) in
  /// plain decimal notation with trailing zeros dropped (`-22.9068`, `12.0`, never
  /// `1e-05` or float noise such as `-22.906799999999997`); `null` when it is `nil` or
  /// not finite.
  mutating func number(_ value: Double?, decimalPlaces places: Int) {
    startValue()
    guard let value, value.isFinite else { return append("null") }
    DecimalText.withFixedUTF8(value, decimalPlaces: places) { buffer.append($0) }
  }

  /// `value` as a JSON string (see ``quoted(_:)``), or `null` when it is `nil`.
  mutating func string(_ value: String?) {
    startValue()
    guard var value else { return append("null") }
    value.withUTF8 { JSONWriter.appendQuoted($0, to: buffer) }
  }

  /// A string value of UTF-8 bytes that need no escaping (no control character, `"` or
  /// `\\`).
  mutating func string(plain bytes: UnsafeBufferPointer<UInt8>) {
    startValue()
    buffer.append(UInt8(ascii: "\""))
    buffer.append(bytes)
    buffer.append(UInt8(ascii: "\""))
  }

  /// ``Asset/urlString`` as a string value, for an asset whose identifier is `id` and whose
  /// extension `fileExtension` is letters and digits (which the URL keeps as they are).
  mutating func string(assetURL id: UUID, fileExtension: UnsafeBufferPointer<UInt8>) {
    startValue()
    buffer.append("\"assets-library://asset/asset.")
    buffer.append(fileExtension)
    buffer.append("?id=")
    JSONWriter.appendUUID(id, to: buffer)
    buffer.append("&ext=")
    buffer.append(fileExtension)
    buffer.append(UInt8(ascii: "\""))
  }

  /// A string value that needs no escaping, such as a fixed word.
  mutating func string(literal value: StaticString) {
    startValue()
    buffer.append(UInt8(ascii: "\""))
    buffer.append(value)
    buffer.append(UInt8(ascii: "\""))
  }

  /// A UUID as a string, in `uuidString`'s form (upper-case hex, 8-4-4-4-12).
  mutating func string(uuid: UUID) {
    startValue()
    buffer.append(UInt8(ascii: "\""))
    JSONWriter.appendUUID(uuid, to: buffer)
    buffer.append(UInt8(ascii: "\""))
  }

  /// A capture date as ``CaptureDate/iso8601`` writes it, or `null` when it is `nil`.
  mutating func string(iso8601 date: CaptureDate?) {
    startValue()
    guard let date else { return append("null") }
    buffer.append(UInt8(ascii: "\""))
    // ISO 8601 text is digits, `-`, `:`, `T`, `.`, `+` and `Z`: nothing to escape.
    date.withISO8601UTF8 { buffer.append($0) }
    buffer.append(UInt8(ascii: "\""))
  }

  /// An object whose members `body` writes.
  mutating func object(_ body: (inout JSONWriter) -> Void) {
    container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
  }

  /// An array whose elements `body` writes.
  mutating func array(_ body: (inout JSONWriter) -> Void) {
    container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
  }

  private mutating func container(
    open: UInt8, close: UInt8, _ body: (inout JSONWriter) -> Void
  ) {
    let outerCount = openContainer(open)
    body(&self)
    closeContainer(close, outerCount: outerCount)
  }

  /// Starts an object or an array whose contents the caller writes next, and returns what
  /// ``closeContainer(_:outerCount:)`` needs to end it: ``object(_:)`` and ``array(_:)``
  /// for a writer that cannot hand its contents to a closure.
  mutating func openContainer(_ open: UInt8) -> Int {
    startValue()
    buffer.append(open)
    let outerCount = count
    count = 0
    depth += 1
    return outerCount
  }

  /// Ends the container ``openContainer(_:)`` started.
  mutating func closeContainer(_ close: UInt8, outerCount: Int) {
    depth -= 1
    if count > 0, !isCompact {
      buffer.append(UInt8(ascii: "\n"))
      appendIndent()
    }
    buffer.append(close)
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
    let hasComma = count > 0
    count += 1
    guard !isCompact else {
      if hasComma { buffer.append(UInt8(ascii: ",")) }
      return
    }
    // The comma, the newline and the indentation as one run of bytes.
    let end = 2 + 2 * (baseLevel + depth)
    guard end <= JSONWriter.lineStarts.count else {
      if hasComma { buffer.append(UInt8(ascii: ",")) }
      buffer.append(UInt8(ascii: "\n"))
      return appendIndent()
    }
    JSONWriter.lineStarts.withUnsafeBufferPointer {
      buffer.append(UnsafeBufferPointer(rebasing: $0[(hasComma ? 0 : 1)..<end]))
    }
  }

  private mutating func appendIndent() {
    let width = 2 * (baseLevel + depth)
    if 2 + width <= JSONWriter.lineStarts.count {
      JSONWriter.lineStarts.withUnsafeBufferPointer {
        buffer.append(UnsafeBufferPointer(rebasing: $0[2..<(2 + width)]))
      }
    } else {
      for _ in 0..<width { buffer.append(UInt8(ascii: " ")) }
    }
  }

  /// `,\n` and spaces for the indentation levels an asset's JSON reaches: a slice of it
  /// starts a line, with or without the comma that ends the one before.
  private static let lineStarts =
    Array(",\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 32)

  /// `value` in decimal, with a leading `-` when negative.
  private mutating func appendDecimal(_ value: Int64) {
    if value < 0 { buffer.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    // 20 digits hold UInt64.max; filled from the end.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      buffer.append(UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }
}

/// The text a ``JSONWriter`` wrote, in the writer's own buffer: what a listing's workers
/// hand to the one that writes the output, without copying it into an array.
///
/// `@unchecked Sendable` is safe: the buffer is written only by the writer that made it,
/// before ``JSONWriter/finish()`` hands it over (the writer is consumed then, so nothing
/// writes to it again), and this type only reads it. Whoever passes it to another thread
/// publishes those writes as it publishes the value itself (the listing hands items over
/// under a lock).
struct JSONText: @unchecked Sendable {
  fileprivate let buffer: ByteBuffer

  /// Calls `body` with the text's UTF-8 bytes.
  func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    buffer.withBytes(body)
  }
}
