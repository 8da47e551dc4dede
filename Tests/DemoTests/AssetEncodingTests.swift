import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// `JSONEncoder().encode(asset)` (the library's `Encodable`) and the Demo's JSON object
/// (its byte writer) say the same thing: the same keys, and equal values once parsed.
///
/// Over `Fixtures/Library` and `Fixtures/Phones` always, and over every folder listed
/// (separated by `:`) in `GROUPENUMERATOR_JSON_LIBRARIES` when set: `make legacy-check`
/// sets it to the shared corpus, which `.ci/run` runs.
@Suite struct AssetEncodingTests {
  /// The package's `Fixtures` folder.
  static let fixtures = DemoCommand.bundledLibrary.deletingLastPathComponent()

  /// The libraries to check: both fixture libraries, then those the environment names.
  static let libraries: [String] = {
    var libraries = [
      DemoCommand.bundledLibrary.path, fixtures.appendingPathComponent("Phones").path,
    ]
    if let extra = ProcessInfo.processInfo.environment["GROUPENUMERATOR_JSON_LIBRARIES"] {
      libraries += extra.split(separator: ":").map(String.init)
    }
    return libraries
  }()

  @Test(arguments: libraries)
  func theEncodedAssetIsTheDemosJSONObjectForEveryAsset(library: String) async throws {
    try #require(FileManager.default.fileExists(atPath: library), "no library at \(library)")
    let contents = try await AssetsLibrary(root: URL(fileURLWithPath: library)).enumerate()
    let text = JSONFormatter.format(assets: contents.assets)
    let objects = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    try #require(objects.count == contents.assets.count)
    let encoder = JSONEncoder()
    for (asset, written) in zip(contents.assets, objects) {
      let encoded = try JSONSerialization.jsonObject(with: encoder.encode(asset))
      let difference = AssetEncodingTests.difference(written, encoded)
      #expect(difference == nil, "\(asset.path): \(difference ?? "")")
    }
    if library.hasPrefix(AssetEncodingTests.fixtures.path) {
      #expect(!contents.assets.isEmpty, "the check ran on something")
    }
  }

  @Test func aPhotoWithoutTIFFDateTimeHasANullDateTimeAndTheLegacyZero() throws {
    let asset = SampleAssets.photoWithoutGPS()
    let encoded = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(asset)) as? [String: Any])
    #expect(encoded["dateTime"] is NSNull)
    let legacy = try #require(encoded["legacy"] as? [String: Any])
    #expect(legacy["photoDateTime"] as? String == "0")
    let gps = try #require(legacy["photoGPS"] as? [String: Any])
    #expect(gps["Latitude"] as? String == "0.0")
    #expect(gps["Longitude"] as? String == "0.0")
    #expect(Set(gps.keys) == ["Latitude", "Longitude"])

    let written = try #require(
      try JSONSerialization.jsonObject(with: Data(JSONFormatter.object(for: asset).utf8))
        as? [String: Any])
    #expect(written["dateTime"] is NSNull)
    #expect((written["legacy"] as? [String: Any])?["photoDateTime"] as? String == "0")
  }

  @Test func theEncodedLocationIsRoundedLikeTheDemos() throws {
    var metadata = MediaMetadata()
    let location = try #require(
      Location(latitude: -22.906799999999997, longitude: -43.17290000000001, altitude: 8.12345))
    metadata.location = location
    let asset = Asset(
      path: LibraryPath("a.jpg"), group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [], fileModificationDate: .distantPast, metadata: metadata)
    let encoded = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(asset)) as? [String: Any])
    let written = try #require(encoded["location"] as? [String: Any])
    #expect((written["latitude"] as? NSNumber)?.doubleValue == -22.9068)
    #expect((written["longitude"] as? NSNumber)?.doubleValue == -43.1729)
    #expect((written["altitude"] as? NSNumber)?.doubleValue == 8.123)
  }

  @Test func aDifferenceInAnyKeyValueOrElementIsFound() {
    let object: [String: Any] = ["a": "x", "n": 1.5, "l": [["k": NSNull()]], "b": true]
    #expect(AssetEncodingTests.difference(object, object) == nil)
    #expect(
      AssetEncodingTests.difference(object, ["a": "x", "n": 1.5, "l": [["k": NSNull()]]]) != nil)
    var changed = object
    changed["n"] = 1.25
    #expect(AssetEncodingTests.difference(object, changed) != nil)
    changed = object
    changed["l"] = [["k": "0"]]
    #expect(AssetEncodingTests.difference(object, changed) != nil)
    changed = object
    changed["a"] = NSNull()
    #expect(AssetEncodingTests.difference(object, changed) != nil)
    changed = object
    changed["l"] = [] as [Any]
    #expect(AssetEncodingTests.difference(object, changed) != nil)
  }

  /// Where two parsed JSON values differ (key sets, array lengths, strings, `null`,
  /// numbers compared as `Double`s within a few units in the last place), or `nil`.
  static func difference(_ left: Any, _ right: Any, at path: String = "") -> String? {
    switch (left, right) {
    case (let left as [String: Any], let right as [String: Any]):
      guard Set(left.keys) == Set(right.keys) else {
        return "\(path) keys \(left.keys.sorted()) ≠ \(right.keys.sorted())"
      }
      for key in left.keys.sorted() {
        if let found = difference(left[key] as Any, right[key] as Any, at: "\(path).\(key)") {
          return found
        }
      }
      return nil
    case (let left as [Any], let right as [Any]):
      guard left.count == right.count else { return "\(path): \(left.count) ≠ \(right.count)" }
      for (index, (one, other)) in zip(left, right).enumerated() {
        if let found = difference(one, other, at: "\(path)[\(index)]") { return found }
      }
      return nil
    case (is NSNull, is NSNull):
      return nil
    case (let left as String, let right as String):
      return left == right ? nil : "\(path): \(left) ≠ \(right)"
    case (let left as NSNumber, let right as NSNumber):
      // Foundation's parser on Linux may round the last digit of a Double's shortest text.
      let one = left.doubleValue
      let other = right.doubleValue
      return abs(one - other) <= 4 * max(one.ulp, other.ulp) ? nil : "\(path): \(one) ≠ \(other)"
    default:
      return "\(path): \(left) ≠ \(right)"
    }
  }
}
