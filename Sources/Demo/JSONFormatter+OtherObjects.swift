import FoundationEssentials
import GroupEnumeratorCore

/// The JSON objects that are not assets: files that are not assets
/// (`--include-other`) and groups (`Demo groups`).
extension JSONFormatter {
  /// One element of the `--format json --include-other` array for a file that is not an
  /// asset: its object indented by two spaces, without the comma or newline that follow.
  static func element(for file: OtherFile) -> [UInt8] {
    var writer = JSONWriter(level: 1)
    writer.append("  ")
    writeObject(for: file, to: &writer)
    return writer.bytes
  }

  /// One line of `--format ndjson --include-other` for a file that is not an asset.
  static func line(for file: OtherFile) -> [UInt8] {
    var writer = JSONWriter(compact: true)
    writeObject(for: file, to: &writer)
    writer.append("\n")
    return writer.bytes
  }

  /// The object for a file that is not an asset: `path`, `name`, `type` (`"other"`, which
  /// no asset has), `fileSize`, `modificationDate` (ISO 8601, UTC), `reason` (a code of
  /// ``OtherFile/Reason``) and `message` (the reason as a sentence).
  private static func writeObject(for file: OtherFile, to writer: inout JSONWriter) {
    writer.object { json in
      json.key("path")
      json.string(file.path.escaped)
      json.key("name")
      json.string(file.name)
      json.key("type")
      json.string(literal: "other")
      json.key("fileSize")
      json.integer(file.fileSize)
      json.key("modificationDate")
      json.string(iso8601: CaptureDate(utc: file.modificationDate, source: .fileModificationTime))
      json.key("reason")
      json.string(file.reason.rawValue)
      json.key("message")
      json.string(file.message)
    }
  }

  /// One line of `Demo groups --format ndjson`.
  static func line(for group: AssetGroup) -> [UInt8] {
    var writer = JSONWriter(compact: true)
    writeObject(for: group, to: &writer)
    writer.append("\n")
    return writer.bytes
  }

  /// One array, one object per group, for `Demo groups --format json`.
  static func format(groups: [AssetGroup]) -> String {
    var writer = JSONWriter()
    writer.array { array in
      for group in groups { writeObject(for: group, to: &array) }
    }
    writer.append("\n")
    return writer.text
  }

  private static func writeObject(for group: AssetGroup, to writer: inout JSONWriter) {
    writer.object { json in
      json.key("id")
      json.string(uuid: group.id)
      json.key("url")
      json.string(group.url.absoluteString)
      json.key("name")
      json.string(group.name)
      json.key("type")
      json.string(group.kind.rawValue)
      json.key("path")
      json.string(group.path.escaped)
      json.key("count")
      json.integer(group.count)
      json.key("photos")
      json.integer(group.counts[.photo] ?? 0)
      json.key("livePhotos")
      json.integer(group.counts[.livePhoto] ?? 0)
      json.key("videos")
      json.integer(group.counts[.video] ?? 0)
    }
  }
}
