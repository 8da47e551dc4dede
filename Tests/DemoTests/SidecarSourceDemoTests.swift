import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// The date sources of embedded XMP and of sidecars, as the Demo's JSON, CSV and table
/// show them, over `Fixtures/Sidecars` (see `Fixtures/Sidecars.md`).
@Suite struct SidecarSourceDemoTests {
  static let sidecars = DemoCommand.bundledLibrary.deletingLastPathComponent()
    .appendingPathComponent("Sidecars")

  /// Each fixture, the source its date has in JSON and CSV, and the table's label for it.
  static let expected: [(path: String, source: String, label: String)] = [
    ("Embedded/only-xmp.webp", "xmp:xmp:CreateDate", "XMP create date"),
    ("XMP/DSC_0002.jpg", "sidecar:xmp:exif:DateTimeOriginal", "sidecar XMP original"),
    ("XMP/DSC_0003.JPG", "sidecar:xmp:photoshop:DateCreated", "sidecar XMP created"),
    ("Order/both.jpg", "sidecar:xmp:xmp:CreateDate", "sidecar XMP create"),
    ("Takeout/IMG_0001.jpg", "takeout:photoTakenTime", "Takeout (UTC)"),
  ]

  @Test func jsonCSVAndTheTableNameEachSource() async throws {
    let contents = try await AssetsLibrary(root: Self.sidecars).enumerate(filter: .all)
    let byPath = Dictionary(contents.assets.map { ($0.path.escaped, $0) }) { first, _ in first }
    let objects = try #require(
      try JSONSerialization.jsonObject(
        with: Data(JSONFormatter.format(assets: contents.assets).utf8)) as? [[String: Any]])
    let sourceByPath = Dictionary(
      objects.compactMap { object in
        (object["path"] as? String).map { ($0, object["creationDateSource"] as? String) }
      }
    ) { first, _ in first }
    let table = TableFormatter(strings: Strings(language: .english))
    let sourceColumn = try #require(
      CSVFormatter.format(assets: []).split(separator: ",")
        .firstIndex(of: "creationDateSource"))
    for (path, source, label) in Self.expected {
      let asset = try #require(byPath[path], "\(path) is listed")
      #expect(sourceByPath[path] == source, "\(path)")
      #expect(CSVFormatter.fields(for: asset)[sourceColumn] == source, "\(path)")
      #expect(table.row(asset)[3] == label, "\(path)")
    }
  }
}
