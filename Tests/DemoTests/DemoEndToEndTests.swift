import Foundation
import Testing

@testable import Demo

/// Runs the whole command over the bundled `Fixtures/Library`; skipped where the
/// fixtures are not checked out.
@MainActor
@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs Fixtures/Library"))
struct DemoEndToEndTests {
  private static let contractKeys = [
    "id", "url", "path", "name", "group", "type", "resources", "width", "height",
    "orientation", "duration", "creationDate", "creationDateSource", "dateTime", "location",
    "fileSize", "hasThumbnail", "make", "model", "lensModel", "legacy", "problems",
  ]

  /// The keys of each object of a JSON array as JSONFormatter lays it out (objects open
  /// with `  {`, their keys sit at four spaces), in order.
  private func keysOfEachObject(_ text: String) -> [[String]] {
    var objects: [[String]] = []
    for line in text.split(separator: "\n") {
      if line == "  {" {
        objects.append([])
      } else if !objects.isEmpty, line.hasPrefix("    \""),
        let close = line.dropFirst(5).firstIndex(of: "\"")
      {
        objects[objects.count - 1].append(String(line.dropFirst(5)[..<close]))
      }
    }
    return objects
  }

  @Test func jsonListsEveryAssetWithTheContractKeysInOrder() async throws {
    let (status, output, errors) = await run(["--format", "json"])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    #expect(!assets.isEmpty)
    let objectKeys = keysOfEachObject(output)
    #expect(objectKeys.count == assets.count)
    for keys in objectKeys { #expect(keys == Self.contractKeys) }
  }

  @Test func lookupFindsEachListedAssetAndPrintsTheSameObject() async throws {
    let (_, output, _) = await run(["--format", "json"])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    for asset in assets {
      let url = try #require(asset["url"] as? String)
      let (status, object, errors) = await run(["lookup", url])
      #expect(status == 0, "\(url)")
      #expect(errors.isEmpty, "\(url)")
      let parsed = try #require(
        try JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: Any])
      #expect(parsed["path"] as? String == asset["path"] as? String, "\(url)")
    }
  }

  @Test func everyRegularFileIsListedOnceAndAFileNoReaderTakesSaysWhatItIs() async throws {
    let scratch = try TemporaryFolder("DemoEveryFile")
    let folder = scratch.root
    try FileManager.default.copyItem(
      at: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG"),
      to: folder.appendingPathComponent("IMG_1.JPG"))
    try Data("<x:xmpmeta/>".utf8).write(to: folder.appendingPathComponent("img_1.xmp"))
    try Data("hello".utf8).write(to: folder.appendingPathComponent("notes.txt"))
    try Data("hidden".utf8).write(to: folder.appendingPathComponent(".notes.txt"))
    let (status, output, errors) = await run(["--format", "json", folder.path])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    // notes.txt is not media: not an asset, so not listed without --include-other.
    #expect(assets.map { $0["path"] as? String } == ["IMG_1.JPG"])
    let (otherStatus, withOthers, otherErrors) = await run(
      ["--format", "json", "--include-other", folder.path])
    #expect(otherStatus == 0)
    #expect(otherErrors.isEmpty)
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(withOthers.utf8)) as? [[String: Any]])
    #expect(entries.map { $0["path"] as? String } == ["IMG_1.JPG", "notes.txt"])
    #expect(entries.map { $0["type"] as? String } == ["photo", "other"])
    let resources = ((entries.first?["resources"] as? [[String: Any]]) ?? []).map {
      "\($0["path"] as? String ?? "?") \($0["role"] as? String ?? "?")"
    }
    #expect(resources == ["IMG_1.JPG photo", "img_1.xmp sidecar"])
    #expect(entries.first?["fileSize"] as? Int == 1553)  // Fixtures/README.md, the JPEG alone.
    #expect(entries.first?["legacy"] is [String: Any])
    let notes = try #require(entries.last)
    #expect(
      Set(notes.keys) == [
        "path", "name", "type", "fileSize", "modificationDate", "reason", "message",
      ])
    #expect(notes["reason"] as? String == "notMedia")
    #expect(
      notes["message"] as? String
        == "'notes.txt' is a .txt file, not a photo or video GroupEnumerator can read.")
    #expect(notes["fileSize"] as? Int == 5)
    #expect((notes["modificationDate"] as? String)?.hasSuffix("Z") == true)
  }

  @Test func theSampleNotesAreAnOtherFileListedOnlyWithIncludeOther() async throws {
    let (_, output, _) = await run(["--format", "json"])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    #expect(assets.count == 15)  // Fixtures/README.md
    #expect(!assets.contains { $0["path"] as? String == "Broken/notes.txt" })
    let (_, withOthers, _) = await run(["--format", "json", "--include-other"])
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(withOthers.utf8)) as? [[String: Any]])
    #expect(entries.count == 16)
    // After the assets, by path.
    let notes = try #require(entries.last)
    #expect(notes["path"] as? String == "Broken/notes.txt")
    #expect(notes["type"] as? String == "other")
    #expect(
      notes["message"] as? String
        == "'Broken/notes.txt' is a .txt file, not a photo or video GroupEnumerator can read.")
  }

  @Test func theTableEndsWithASummaryThatCountsTheRows() async throws {
    let (status, output, errors) = await run(["--filter", "photos"])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let (_, json, _) = await run(["--format", "json", "--filter", "photos"])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    let count = assets.count
    #expect(output.contains("\n\(count) \(count == 1 ? "asset" : "assets") (\(count) photo"))
  }

  @Test func groupsListTheCameraRollFirstAndAllPhotosLast() async throws {
    let (status, output, errors) = await run(["groups", "--format", "csv"])
    #expect(status == 0)
    #expect(errors.isEmpty)
    let records = output.split(separator: "\r\n")
    #expect(records.first == Substring(CSVFormatter.groupColumns.joined(separator: ",")))
    #expect(records.dropFirst().first?.contains(",Camera Roll,savedPhotos,") == true)
    #expect(records.last?.contains(",All Photos,library,") == true)
  }

  /// The URL the listing gives the asset at `path`.
  private func url(of path: String) async throws -> String {
    let (_, output, _) = await run(["--format", "json"])
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    let asset = try #require(assets.first { $0["path"] as? String == path })
    return try #require(asset["url"] as? String)
  }

  @Test func thumbnailWritesTheEmbeddedJPEGByteForByte() async throws {
    let scratch = try TemporaryFolder("DemoEndToEndTests")
    let output = scratch.root.appendingPathComponent("thumbnail.jpg")
    let url = try await url(of: "Trips/Kyoto 2019/trip-02.jpg")
    let (status, stdout, errors) = await run(["thumbnail", url, "--output", output.path])
    #expect(status == 0)
    #expect(stdout.isEmpty)
    #expect(errors.isEmpty)
    let written = try Data(contentsOf: output)
    // Fixtures/README.md: a 32×24 JPEG of 325 bytes, embedded by make-library.sh.
    #expect(written.count == 325)
    #expect(written.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
    let file = try Data(
      contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("Trips/Kyoto 2019/trip-02.jpg"))
    #expect(file.range(of: written) != nil)
  }

  @Test func thumbnailOfAPhotoWithoutOneSaysSoAndFails() async throws {
    let url = try await url(of: "IMG_0002.jpg")
    let (status, _, errors) = await run(["thumbnail", url, "--output", "/dev/null"])
    #expect(status == 1)
    #expect(errors == "Error: 'IMG_0002.jpg' has no embedded thumbnail.\n")
  }

  @Test func thumbnailWithASizeDrawsAnyAsset() async throws {
    let scratch = try TemporaryFolder("pictures")
    let folder = scratch.root
    // A photo with no embedded thumbnail, a movie and a Live Photo: each a JPEG. (Never
    // through the test runner's own thumbnail cache: DemoProcessCacheTests uses one.)
    for (path, arguments, prefix) in [
      ("IMG_0002.jpg", ["--size", "64"], "fit"), ("Videos/clip.mp4", ["--size", "48"], "movie"),
      ("DCIM/100APPLE/IMG_0200.HEIC", ["--size", "40", "--fill"], "live"),
    ] {
      let output = folder.appendingPathComponent("\(prefix).jpg")
      let url = try await url(of: path)
      let (status, stdout, errors) = await run(
        ["thumbnail", url, "--output", output.path, "--no-cache"] + arguments)
      #expect(status == 0, "\(path): \(errors)")
      #expect(stdout.isEmpty)
      let written = try Data(contentsOf: output)
      #expect(written.prefix(3) == Data([0xFF, 0xD8, 0xFF]), "\(path)")
    }
    // --embedded is today's byte-for-byte copy.
    let embedded = folder.appendingPathComponent("embedded.jpg")
    let url = try await url(of: "Trips/Kyoto 2019/trip-02.jpg")
    let (status, _, _) = await run(["thumbnail", url, "--embedded", "--output", embedded.path])
    #expect(status == 0)
    #expect(try Data(contentsOf: embedded).count == 325)
  }

  @Test func thumbnailWithASizeOfABrokenFileSaysWhyAndFails() async throws {
    let url = try await url(of: "Broken/broken.jpg")
    let (status, stdout, errors) = await run(
      ["thumbnail", url, "--size", "80", "--output", "-", "--no-cache"])
    #expect(status == 1)
    #expect(stdout.isEmpty)
    #expect(errors.hasPrefix("Error: 'broken.jpg' cannot be decoded: "))
  }
}
