import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// Every writer of the asset object walks the one schema: the CSV columns follow the JSON
/// object's members, and `Encodable` writes the same members.
@Suite struct AssetSchemaTests {
  /// The keys of the top-level members of indented JSON text, in order.
  private static func topLevelKeys(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  \""), !line.hasPrefix("   "),
        let end = line.dropFirst(3).firstIndex(of: "\"")
      else { return nil }
      return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
    }
  }

  @Test func theCSVColumnsAreTheJSONMembersWithLocationSpreadAndNoLegacy() throws {
    let asset = try SampleAssets.photoWithGPS()
    let members = AssetSchemaTests.topLevelKeys(JSONFormatter.object(for: asset))
    #expect(members.count == 22)
    let expected = members.flatMap { key -> [String] in
      switch key {
      case "location": ["latitude", "longitude", "altitude"]
      case "legacy": []
      default: [key]
      }
    }
    #expect(CSVFormatter.assetColumns == expected)
  }

  @Test func theEncoderWritesTheJSONMembers() throws {
    let asset = try SampleAssets.photoWithGPS()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
    let encoded = String(decoding: try encoder.encode(asset), as: UTF8.self)
    let demo = AssetSchemaTests.topLevelKeys(JSONFormatter.object(for: asset))
    let keys = encoded.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  \""), !line.hasPrefix("   ") else { return nil }
      return String(line.dropFirst(3).prefix { $0 != "\"" })
    }
    #expect(Set(keys) == Set(demo))
    #expect(keys.count == demo.count)
  }
}
