import Dispatch
import FoundationEssentials
@_spi(Demo) import GroupEnumeratorCore
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
    var visitor = AssetJSONVisitor(writer: writer, text: AssetText(asset), groupName: groupName)
    visitor.writeObject { AssetSchema.visit(asset, with: &$0) }
    writer = visitor.writer
  }

  /// The asset's `resources` array on one line, as CSV's `resources` field holds it.
  static func compactResources(of asset: Asset) -> String {
    var visitor = AssetJSONVisitor(
      writer: JSONWriter(compact: true), text: AssetText(asset), groupName: "")
    visitor.writeObjects(asset.resources) { AssetSchema.visit($1, of: asset, with: &$0) }
    return visitor.writer.text
  }

  /// The legacy dictionary of a photo (``Asset/legacyDictionary``, placeholders kept),
  /// as indented text without a final newline.
  static func legacyDictionary(for asset: Asset) -> String {
    var visitor = AssetJSONVisitor(writer: JSONWriter(), text: AssetText(asset), groupName: "")
    visitor.writeObject { AssetSchema.visitLegacy(asset, with: &$0) }
    return visitor.writer.text
  }
}
