import Dispatch
import Foundation
import GroupEnumerator
import Synchronization

/// The `--format json` output and the object `lookup` prints (docs/Formats.md, "JSON, ndjson and CSV").
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
  static func write(assets: [Asset], to stream: inout some ByteOutputStream) {
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
      for bytes in formatted(assets, start..<end, chunks: workers) { stream.write(bytes: bytes) }
      start = end
    }
    stream.write("]\n")
  }

  /// How many assets one core formats in one go (about 1.5 MB of text).
  private static let assetsPerChunk = 1024

  /// The array elements for `assets[range]`, split into up to `chunks` runs formatted
  /// concurrently; returned in order.
  private static func formatted(_ assets: [Asset], _ range: Range<Int>, chunks: Int) -> [[UInt8]] {
    let count = min(chunks, range.count)
    let size = (range.count + count - 1) / count
    let results = Mutex([[UInt8]](repeating: [], count: count))
    DispatchQueue.concurrentPerform(iterations: count) { chunk in
      let lower = range.lowerBound + chunk * size
      let upper = min(lower + size, range.upperBound)
      guard lower < upper else { return }
      let bytes = elements(assets, lower..<upper, last: assets.count - 1)
      results.withLock { $0[chunk] = bytes }
    }
    return results.withLock { $0 }
  }

  /// The array elements for `assets[range]`, each indented by two spaces and followed
  /// by a comma unless its index is `last`, all written into one buffer.
  private static func elements(_ assets: [Asset], _ range: Range<Int>, last: Int) -> [UInt8] {
    var writer = JSONWriter(level: 1, capacity: range.count * bytesPerAsset)
    var group: (kind: AssetGroup.Kind, path: LibraryPath, name: String)?
    for index in range {
      let asset = assets[index]
      if group?.kind != asset.group || group?.path != asset.groupPath {
        let name = AssetGroup(kind: asset.group, path: asset.groupPath).name
        group = (asset.group, asset.groupPath, name)
      }
      writer.append("  ")
      writeObject(for: asset, groupName: group?.name ?? "", to: &writer)
      writer.append(index == last ? "\n" : ",\n")
    }
    return writer.bytes
  }

  /// One element of ``format(assets:)``'s array: the asset's object indented by two
  /// spaces, without the comma or newline that follow it.
  static func element(for asset: Asset) -> [UInt8] {
    preparedElement(for: asset).withBytes { Array($0) }
  }

  /// ``element(for:)-(Asset)`` in the buffer it was written into.
  static func preparedElement(for asset: Asset) -> JSONText {
    var writer = JSONWriter(level: 1, capacity: bytesPerAsset)
    writer.append("  ")
    writeObject(for: asset, groupName: groupName(of: asset), to: &writer)
    return writer.finish()
  }

  /// The name of the asset's group.
  ///
  /// Making an ``AssetGroup`` hashes its path into its identifier, which costs more than
  /// the rest of an asset's JSON; consecutive assets mostly share their group, so the
  /// last one's name is kept (for all workers: they read neighbouring assets).
  private static func groupName(of asset: Asset) -> String {
    let kind = asset.group
    let path = asset.groupPath
    let known = lastGroup.withLock { last -> String? in
      guard let last, last.kind == kind, last.path == path else { return nil }
      return last.name
    }
    if let known { return known }
    let name = AssetGroup(kind: kind, path: path).name
    lastGroup.withLock { $0 = (kind, path, name) }
    return name
  }

  /// The group ``groupName(of:)`` named last.
  private static let lastGroup = Mutex<(kind: AssetGroup.Kind, path: LibraryPath, name: String)?>(
    nil)

  /// One line of `--format ndjson`: the asset's object on one line, then a newline.
  static func line(for asset: Asset) -> [UInt8] {
    preparedLine(for: asset).withBytes { Array($0) }
  }

  /// ``line(for:)-(Asset)`` in the buffer it was written into.
  static func preparedLine(for asset: Asset) -> JSONText {
    var writer = JSONWriter(capacity: bytesPerAsset, compact: true)
    writeObject(for: asset, groupName: groupName(of: asset), to: &writer)
    writer.append("\n")
    return writer.finish()
  }

  /// The `--format ndjson` line for a folder that could not be read:
  /// `{"type":"folderProblem","path":"…","problem":"…"}`.
  static func folderProblemLine(path: LibraryPath, problem: AssetProblem) -> [UInt8] {
    var writer = JSONWriter(compact: true)
    writer.object { json in
      json.key("type")
      json.string(literal: "folderProblem")
      json.key("path")
      json.string(path.escaped)
      json.key("problem")
      json.string(problem.description)
    }
    writer.append("\n")
    return writer.bytes
  }

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

  /// About how much text one asset's object takes, to size buffers up front.
  private static let bytesPerAsset = 1536

  /// The object for one asset, with exactly the keys docs/Formats.md lists, in that order, as
  /// indented text without a final newline.
  static func object(for asset: Asset) -> String {
    var writer = JSONWriter(capacity: bytesPerAsset)
    writeObject(for: asset, groupName: groupName(of: asset), to: &writer)
    return writer.text
  }

  /// Writes ``object(for:)`` with the name of the asset's group already known
  /// (consecutive assets share it).
  private static func writeObject(
    for asset: Asset, groupName: String, to writer: inout JSONWriter
  ) {
    let text = AssetText(asset)
    // Each read of `metadata` copies the whole struct, and `creationDate` picks among
    // its dates: read them once.
    let metadata = asset.metadata
    let creationDate = asset.creationDate
    writer.object { json in
      json.key("id")
      json.string(uuid: asset.id)
      json.key("url")
      text.writeURL(to: &json)
      json.key("path")
      text.writePath(to: &json)
      json.key("name")
      text.writeName(to: &json)
      json.key("group")
      json.string(groupName)
      json.key("type")
      json.string(asset.type.rawValue)
      json.key("resources")
      writeResources(of: asset, primary: text, to: &json)
      writeMeasures(of: asset, orientation: metadata.orientation, to: &json)
      writeDates(creationDate, dateTime: metadata.dateTime, to: &json)
      json.key("location")
      writeLocation(of: asset, to: &json)
      json.key("fileSize")
      json.integer(asset.fileSize)
      json.key("hasThumbnail")
      json.bool(metadata.hasThumbnail)
      json.key("make")
      json.string(metadata.make)
      json.key("model")
      json.string(metadata.model)
      json.key("lensModel")
      json.string(metadata.lensModel)
      json.key("legacy")
      if asset.type == .video {
        json.null()
      } else {
        writeLegacyDictionary(for: asset, text: text, to: &json)
      }
      json.key("problems")
      writeProblems(of: asset, to: &json)
    }
  }

  /// The `resources` array: `name`, `path` and `role` of each, and `byteRange` (`offset`,
  /// `length`) of one that is only a part of its file.
  ///
  /// - Parameter primary: The text of the asset's own file, which its first resource
  ///   usually shares (then it is not made again).
  private static func writeResources(
    of asset: Asset, primary: AssetText, to writer: inout JSONWriter
  ) {
    writer.array { array in
      for resource in asset.resources {
        let isPrimary = resource.path == asset.path
        array.object { json in
          json.key("name")
          if isPrimary { primary.writeName(to: &json) } else { json.string(resource.name) }
          json.key("path")
          if isPrimary {
            primary.writePath(to: &json)
          } else {
            json.string(resource.path.escaped)
          }
          json.key("role")
          json.string(resource.role.rawValue)
          if let range = resource.byteRange {
            // Only a part of the file (a motion photo's video): where it is.
            json.key("byteRange")
            json.object { part in
              part.key("offset")
              part.integer(range.lowerBound)
              part.key("length")
              part.integer(range.count)
            }
          }
        }
      }
    }
  }

  /// The asset's `resources` array on one line, as CSV's `resources` field holds it.
  static func compactResources(of asset: Asset) -> String {
    var writer = JSONWriter(compact: true)
    writeResources(of: asset, primary: AssetText(asset), to: &writer)
    return writer.text
  }

  /// The asset's `problems` array on one line, as CSV's `problems` field holds it.
  static func compactProblems(of asset: Asset) -> String {
    var writer = JSONWriter(compact: true)
    writeProblems(of: asset, to: &writer)
    return writer.text
  }

  /// The `problems` array: each problem's `code: message`.
  private static func writeProblems(of asset: Asset, to writer: inout JSONWriter) {
    writer.array { array in
      for problem in asset.problems { array.string(problem.description) }
    }
  }

  /// The members `width`, `height`, `orientation` and `duration`.
  private static func writeMeasures(
    of asset: Asset, orientation: Int?, to json: inout JSONWriter
  ) {
    json.key("width")
    json.integer(asset.pixelWidth)
    json.key("height")
    json.integer(asset.pixelHeight)
    json.key("orientation")
    json.integer(orientation)
    json.key("duration")
    json.number(asset.duration)
  }

  /// The members `creationDate`, `creationDateSource` and `dateTime` (the raw TIFF
  /// DateTime, `null` when absent: only the legacy dictionary keeps the original's `"0"`).
  private static func writeDates(
    _ creationDate: CaptureDate?, dateTime: String?, to json: inout JSONWriter
  ) {
    json.key("creationDate")
    json.string(iso8601: creationDate)
    json.key("creationDateSource")
    json.string(creationDate?.source.rawValue)
    json.key("dateTime")
    json.string(dateTime)
  }

  /// The signed `latitude`, `longitude` (at most ``Location/coordinateDecimalPlaces``
  /// decimals) and `altitude` (at most ``Location/altitudeDecimalPlaces``), or `null`
  /// without GPS.
  private static func writeLocation(of asset: Asset, to writer: inout JSONWriter) {
    guard let location = asset.location else {
      writer.null()
      return
    }
    writer.object { json in
      json.key("latitude")
      json.number(location.latitude, decimalPlaces: Location.coordinateDecimalPlaces)
      json.key("longitude")
      json.number(location.longitude, decimalPlaces: Location.coordinateDecimalPlaces)
      json.key("altitude")
      json.number(location.altitude, decimalPlaces: Location.altitudeDecimalPlaces)
    }
  }

  /// The legacy dictionary of a photo: `photoDefaultPath`, `photoThumPath` (the same
  /// asset URL), `photoName`, `photoGPS` (unsigned degrees with N/S/E/W refs, or the
  /// strings `"0.0"` without GPS) and `photoDateTime` (raw TIFF DateTime or `"0"`), as
  /// indented text without a final newline.
  static func legacyDictionary(for asset: Asset) -> String {
    var writer = JSONWriter()
    writeLegacyDictionary(for: asset, text: AssetText(asset), to: &writer)
    return writer.text
  }

  /// Writes ``legacyDictionary(for:)`` with the asset's URL and name already known.
  private static func writeLegacyDictionary(
    for asset: Asset, text: AssetText, to writer: inout JSONWriter
  ) {
    writer.object { json in
      json.key("photoDefaultPath")
      text.writeURL(to: &json)
      json.key("photoThumPath")
      text.writeURL(to: &json)
      json.key("photoName")
      text.writeName(to: &json)
      json.key("photoGPS")
      writeLegacyGPS(of: asset, to: &json)
      json.key("photoDateTime")
      json.string(asset.legacyDateTime)
    }
  }

  /// `photoGPS`: ``Asset/legacyGPS`` (unsigned degrees with their refs, or `"0.0"`
  /// strings without GPS), written in the legacy dictionary's key order.
  private static func writeLegacyGPS(of asset: Asset, to writer: inout JSONWriter) {
    writer.object { json in
      switch asset.legacyGPS {
      case .coordinates(let latitude, let longitude):
        json.key("Latitude")
        json.number(latitude.degrees)
        json.key("LatitudeRef")
        json.string(latitude.reference)
        json.key("Longitude")
        json.number(longitude.degrees)
        json.key("LongitudeRef")
        json.string(longitude.reference)
      case .missing:
        json.key("Latitude")
        json.string(LegacyGPS.missingCoordinateText)
        json.key("Longitude")
        json.string(LegacyGPS.missingCoordinateText)
      }
    }
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

/// An asset's URL, path and name as JSON strings, written without making a `String` when
/// the path needs no escaping (the usual case: printable ASCII without `%`, `"` or `\\`,
/// whose escaped form is its bytes) and its extension is letters and digits (which the
/// URL keeps as they are); else made as ``Asset/urlString``, ``LibraryPath/escaped`` and
/// ``Asset/name`` make them. Either way the bytes written are the same.
struct AssetText {
  private enum Form {
    /// The path's bytes, where its name starts and where its extension starts (after the
    /// dot; the end when there is none).
    case plain(bytes: [UInt8], name: Int, fileExtension: Int)
    case text(url: String, path: String, name: String)
  }

  private let form: Form
  private let id: UUID

  init(_ asset: Asset) {
    id = asset.id
    let bytes = asset.path.bytes
    if let form = AssetText.plainForm(of: bytes) {
      self.form = form
    } else {
      form = .text(url: asset.urlString, path: asset.path.escaped, name: asset.name)
    }
  }

  /// The plain form of a path, or `nil` when one of its bytes needs escaping or its
  /// extension is not letters and digits.
  private static func plainForm(of bytes: [UInt8]) -> Form? {
    bytes.withUnsafeBufferPointer { path -> Form? in
      var name = 0
      var dot = -1
      for (index, byte) in path.enumerated() {
        guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "\""),
          byte != UInt8(ascii: "\\")
        else { return nil }
        if byte == UInt8(ascii: "/") {
          name = index + 1
          dot = -1
        } else if byte == UInt8(ascii: ".") {
          dot = index
        }
      }
      // An extension follows a dot after the name's first byte (`.jpg` alone has none).
      let fileExtension = dot > name ? dot + 1 : path.count
      for byte in path[fileExtension...] {
        let isAlphanumeric =
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        guard isAlphanumeric else { return nil }
      }
      return .plain(bytes: bytes, name: name, fileExtension: fileExtension)
    }
  }

  /// `"assets-library://asset/asset.EXT?id=UUID&ext=EXT"`.
  func writeURL(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, _, let fileExtension):
      bytes.withUnsafeBufferPointer { path in
        json.string(
          assetURL: id, fileExtension: UnsafeBufferPointer(rebasing: path[fileExtension...]))
      }
    case .text(let url, _, _): json.string(url)
    }
  }

  /// The path, escaped (``LibraryPath/escaped``).
  func writePath(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, _, _):
      bytes.withUnsafeBufferPointer { json.string(plain: $0) }
    case .text(_, let path, _): json.string(path)
    }
  }

  /// The name, escaped (``Asset/name``).
  func writeName(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, let name, _):
      bytes.withUnsafeBufferPointer {
        json.string(plain: UnsafeBufferPointer(rebasing: $0[name...]))
      }
    case .text(_, _, let name): json.string(name)
    }
  }
}
