import Dispatch
import Foundation
import GroupEnumerator
import Synchronization

/// A JSON value whose objects keep their keys in the order they were written.
///
/// Foundation's encoders are not used: they reorder keys and escape `/`.
indirect enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  /// A number; written as `null` when not finite (JSON has no NaN or infinity).
  case number(Double)
  case string(String)
  case array([JSONValue])
  /// Members in output order.
  case object([(key: String, value: JSONValue)])

  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    lhs.serialized() == rhs.serialized()
  }

  /// `.string(value)`, or `.null` when `value` is `nil`.
  static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
  /// `.integer(value)`, or `.null` when `value` is `nil`.
  static func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
  /// `.number(value)`, or `.null` when `value` is `nil`.
  static func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }

  /// The value as RFC 8259 text, indented by two spaces per level, without a final
  /// newline.
  ///
  /// - Parameter level: The indentation level of the value's first line.
  /// - Complexity: O(*n*) in the size of the value.
  func serialized(level: Int = 0) -> String {
    var text = ""
    write(to: &text, level: level)
    return text
  }

  /// Appends ``serialized(level:)`` to `text`.
  func write(to text: inout String, level: Int) {
    switch self {
    case .null: text += "null"
    case .bool(let value): text += value ? "true" : "false"
    case .integer(let value): text += String(value)
    case .number(let value):
      // Swift's description is the shortest text that reads back as the same Double,
      // and its forms (`12.5`, `1e-05`, `-0.0`) are all valid JSON numbers.
      text += value.isFinite ? value.description : "null"
    case .string(let value): JSONValue.appendQuoted(value, to: &text)
    case .array(let elements):
      guard !elements.isEmpty else {
        text += "[]"
        return
      }
      text += "[\n"
      for (index, element) in elements.enumerated() {
        text += JSONValue.indent(level + 1)
        element.write(to: &text, level: level + 1)
        text += index == elements.count - 1 ? "\n" : ",\n"
      }
      text += JSONValue.indent(level) + "]"
    case .object(let members):
      guard !members.isEmpty else {
        text += "{}"
        return
      }
      text += "{\n"
      for (index, member) in members.enumerated() {
        text += JSONValue.indent(level + 1)
        JSONValue.appendQuoted(member.key, to: &text)
        text += ": "
        member.value.write(to: &text, level: level + 1)
        text += index == members.count - 1 ? "\n" : ",\n"
      }
      text += JSONValue.indent(level) + "}"
    }
  }

  /// Indentation for the levels an asset's JSON reaches, made once.
  private static let indents = (0..<8).map { String(repeating: "  ", count: $0) }

  private static func indent(_ level: Int) -> String {
    level < indents.count ? indents[level] : String(repeating: "  ", count: level)
  }

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
    guard needsEscaping else {
      result += "\""
      result += text
      result += "\""
      return
    }
    result += "\""
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
    result += "\""
  }
}

/// The `--format json` output and the object `lookup` prints (DESIGN §5).
enum JSONFormatter {
  /// One array, one object per asset, in the order given, ending in a newline.
  static func format(assets: [Asset]) -> String {
    var text = ""
    write(assets: assets, to: &text)
    return text
  }

  /// Writes ``format(assets:)`` to `stream` a batch at a time: each batch is formatted
  /// on all cores (one run of consecutive assets per core) and written in order, so that
  /// neither the whole JSON tree nor the whole text is ever held in memory.
  static func write(assets: [Asset], to stream: inout some TextOutputStream) {
    guard !assets.isEmpty else {
      stream.write("[]\n")
      return
    }
    stream.write("[\n")
    let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    let batch = assetsPerChunk * workers
    var start = 0
    while start < assets.count {
      let end = min(start + batch, assets.count)
      for text in formatted(assets, start..<end, chunks: workers) { stream.write(text) }
      start = end
    }
    stream.write("]\n")
  }

  /// How many assets one core formats in one go (about 1.5 MB of text).
  private static let assetsPerChunk = 1024

  /// The array elements for `assets[range]`, split into up to `chunks` runs formatted
  /// concurrently; returned in order.
  private static func formatted(_ assets: [Asset], _ range: Range<Int>, chunks: Int) -> [String] {
    let count = min(chunks, range.count)
    let size = (range.count + count - 1) / count
    let results = Mutex([String](repeating: "", count: count))
    DispatchQueue.concurrentPerform(iterations: count) { chunk in
      let lower = range.lowerBound + chunk * size
      let upper = min(lower + size, range.upperBound)
      guard lower < upper else { return }
      var text = ""
      var group: (kind: AssetGroup.Kind, path: LibraryPath, name: String)?
      for index in lower..<upper {
        let asset = assets[index]
        if group?.kind != asset.group || group?.path != asset.groupPath {
          let name = AssetGroup(kind: asset.group, path: asset.groupPath).name
          group = (asset.group, asset.groupPath, name)
        }
        text += "  "
        object(for: asset, groupName: group?.name ?? "").write(to: &text, level: 1)
        text += index == assets.count - 1 ? "\n" : ",\n"
      }
      results.withLock { $0[chunk] = text }
    }
    return results.withLock { $0 }
  }

  /// The object for one asset, with exactly the keys of DESIGN §5, in that order.
  static func object(for asset: Asset) -> JSONValue {
    object(for: asset, groupName: AssetGroup(kind: asset.group, path: asset.groupPath).name)
  }

  /// ``object(for:)`` with the name of the asset's group already known (consecutive
  /// assets share it).
  static func object(for asset: Asset, groupName: String) -> JSONValue {
    let url = asset.urlString
    let location: JSONValue =
      asset.location.map { location in
        .object([
          ("latitude", .number(location.latitude)),
          ("longitude", .number(location.longitude)),
          ("altitude", .number(location.altitude)),
        ])
      } ?? .null
    let resources = asset.resources.map { resource in
      JSONValue.object([
        ("name", .string(resource.name)),
        ("path", .string(resource.path.escaped)),
        ("role", .string(resource.role.rawValue)),
      ])
    }
    return .object([
      ("id", .string(asset.id.uuidString)),
      ("url", .string(url)),
      ("path", .string(asset.path.escaped)),
      ("name", .string(asset.name)),
      ("group", .string(groupName)),
      ("type", .string(asset.type.rawValue)),
      ("resources", .array(resources)),
      ("width", .integer(asset.pixelWidth)),
      ("height", .integer(asset.pixelHeight)),
      ("orientation", .integer(asset.metadata.orientation)),
      ("duration", .number(asset.duration)),
      ("creationDate", .string(asset.creationDate?.iso8601)),
      ("creationDateSource", .string(asset.creationDate?.source.rawValue)),
      ("dateTime", .string(asset.metadata.dateTime ?? "0")),
      ("location", location),
      ("fileSize", .integer(asset.fileSize)),
      ("hasThumbnail", .bool(asset.metadata.hasThumbnail)),
      ("legacy", asset.type == .video ? .null : legacyDictionary(for: asset, url: url)),
      ("problems", .array(asset.problems.map { .string($0.description) })),
    ])
  }

  /// The DESIGN §4 dictionary of a photo: `photoDefaultPath`, `photoThumPath` (the same
  /// asset URL), `photoName`, `photoGPS` (unsigned degrees with N/S/E/W refs, or the
  /// strings `"0.0"` without GPS) and `photoDateTime` (raw TIFF DateTime or `"0"`).
  static func legacyDictionary(for asset: Asset) -> JSONValue {
    legacyDictionary(for: asset, url: asset.urlString)
  }

  /// ``legacyDictionary(for:)`` with the asset's URL already made.
  static func legacyDictionary(for asset: Asset, url: String) -> JSONValue {
    let gps: JSONValue
    if let location = asset.location {
      gps = .object([
        ("Latitude", .number(abs(location.latitude))),
        ("LatitudeRef", .string(location.latitude < 0 ? "S" : "N")),
        ("Longitude", .number(abs(location.longitude))),
        ("LongitudeRef", .string(location.longitude < 0 ? "W" : "E")),
      ])
    } else {
      gps = .object([("Latitude", .string("0.0")), ("Longitude", .string("0.0"))])
    }
    return .object([
      ("photoDefaultPath", .string(url)),
      ("photoThumPath", .string(url)),
      ("photoName", .string(asset.name)),
      ("photoGPS", gps),
      ("photoDateTime", .string(asset.metadata.dateTime ?? "0")),
    ])
  }

  /// One array, one object per group, for `Demo groups --format json`.
  static func format(groups: [AssetGroup]) -> String {
    let objects = groups.map { group in
      JSONValue.object([
        ("id", .string(group.id.uuidString)),
        ("url", .string(group.url.absoluteString)),
        ("name", .string(group.name)),
        ("type", .string(group.kind.rawValue)),
        ("path", .string(group.path.escaped)),
        ("count", .integer(group.count)),
        ("photos", .integer(group.counts[.photo] ?? 0)),
        ("livePhotos", .integer(group.counts[.livePhoto] ?? 0)),
        ("videos", .integer(group.counts[.video] ?? 0)),
      ])
    }
    return JSONValue.array(objects).serialized() + "\n"
  }
}
