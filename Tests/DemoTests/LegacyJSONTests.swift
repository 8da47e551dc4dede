import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// The Demo writes the legacy dictionary byte by byte for speed; these tests hold that
/// writing to ``Asset/legacyDictionary``, the library's one statement of the legacy dictionary.
///
/// Over `Fixtures/Library` always, and over every folder listed (separated by `:`) in
/// `GROUPENUMERATOR_LEGACY_LIBRARIES` when set: `make legacy-check` sets it to the shared
/// corpus, which `.ci/run` runs.
@Suite struct LegacyJSONTests {
  /// The libraries to check: the fixtures, then those the environment names.
  static let libraries: [String] = {
    var libraries = [DemoCommand.bundledLibrary.path]
    if let extra = ProcessInfo.processInfo.environment["GROUPENUMERATOR_LEGACY_LIBRARIES"] {
      libraries += extra.split(separator: ":").map(String.init)
    }
    return libraries
  }()

  @Test(arguments: libraries)
  func theJSONLegacyObjectIsTheLegacyDictionaryOfEveryPhoto(library: String) async throws {
    try #require(FileManager.default.fileExists(atPath: library), "no library at \(library)")
    let contents = try await AssetsLibrary(root: URL(fileURLWithPath: library)).enumerate()
    let text = JSONFormatter.format(assets: contents.assets)
    let objects = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    try #require(objects.count == contents.assets.count)
    var photos = 0
    for (asset, object) in zip(contents.assets, objects) {
      let legacy = object["legacy"]
      guard asset.type != .video else {
        #expect(legacy is NSNull, "\(asset.path): a video has none")
        continue
      }
      photos += 1
      let written = try #require(legacy as? [String: Any], "\(asset.path): no legacy object")
      // Every photo, also one no reader takes, has the five keys of the legacy dictionary.
      #expect(
        Set(written.keys) == [
          "photoDefaultPath", "photoThumPath", "photoName", "photoGPS", "photoDateTime",
        ], "\(asset.path): \(written.keys.sorted())")
      #expect(
        LegacyJSONTests.difference(written, asset.legacyDictionary) == nil,
        "\(asset.path): \(LegacyJSONTests.difference(written, asset.legacyDictionary) ?? "")")
    }
    if library == DemoCommand.bundledLibrary.path {
      #expect(photos > 0, "the fixtures have photos, so the check ran on something")
    }
  }

  @Test func aDifferenceInAnyValueOrKeyIsFound() {
    let dictionary: [String: any Sendable] = [
      "a": "x", "gps": ["Latitude": 1.5, "LatitudeRef": "N"] as [String: any Sendable],
    ]
    #expect(
      LegacyJSONTests.difference(
        ["a": "x", "gps": ["Latitude": 1.5, "LatitudeRef": "N"]], dictionary)
        == nil)
    #expect(
      LegacyJSONTests.difference(
        ["a": "x", "gps": ["Latitude": 1.25, "LatitudeRef": "N"]], dictionary)
        != nil)
    #expect(
      LegacyJSONTests.difference(
        ["a": "x", "gps": ["Latitude": "1.5", "LatitudeRef": "N"]], dictionary)
        != nil)
    #expect(LegacyJSONTests.difference(["a": "x"], dictionary) != nil)
  }

  /// Where the parsed JSON `written` and the dictionary `expected` differ (key sets,
  /// strings, numbers compared as `Double`s, nested dictionaries), or `nil`.
  static func difference(_ written: [String: Any], _ expected: [String: any Sendable]) -> String? {
    guard Set(written.keys) == Set(expected.keys) else {
      return "keys \(written.keys.sorted()) ≠ \(expected.keys.sorted())"
    }
    for (key, value) in expected {
      let other = written[key]
      switch value {
      case let text as String:
        guard other as? String == text else {
          return "\(key): \(String(describing: other)) ≠ \(text)"
        }
      case let number as Double:
        // Foundation's JSON parser on Linux may round the last digit of the shortest
        // text a Double prints as, so equal means within a few units in the last place.
        guard let parsed = other as? NSNumber, !(other is String),
          abs(parsed.doubleValue - number) <= 4 * number.ulp
        else { return "\(key): \(String(describing: other)) ≠ \(number)" }
      case let nested as [String: any Sendable]:
        guard let parsed = other as? [String: Any] else { return "\(key): not an object" }
        if let inner = difference(parsed, nested) { return "\(key).\(inner)" }
      default:
        return "\(key): unexpected value type \(type(of: value))"
      }
    }
    return nil
  }
}
