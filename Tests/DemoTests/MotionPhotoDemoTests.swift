import Foundation
import Testing

@testable import Demo

/// The Demo's JSON for a motion photo (`Fixtures/Phones/Motion`): one `livePhoto` whose
/// `pairedVideo` resource names the still's file with the byte range of its video.
@MainActor
@Suite struct MotionPhotoDemoTests {
  static let motion = DemoCommand.bundledLibrary.deletingLastPathComponent()
    .appendingPathComponent("Phones/Motion")

  @Test func aMotionPhotosPairedVideoCarriesItsByteRange() async throws {
    var stdout = TextBuffer()
    var stderr = TextBuffer()
    let status = await DemoCommand.run(
      arguments: ["--format", "json", "--no-progress", Self.motion.path], stdout: &stdout,
      stderr: &stderr)
    #expect(status == 0)
    #expect(stderr.text.isEmpty, "\(stderr.text)")
    let output = stdout.text
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    #expect(assets.count == 4)
    let google = try #require(
      assets.first { $0["name"] as? String == "PXL_20240202_100000000.MP.jpg" })
    #expect(google["type"] as? String == "livePhoto")
    #expect(google["duration"] as? Double == 1.5)
    #expect(google["fileSize"] as? Int == 3930)
    let resources = try #require(google["resources"] as? [[String: Any]])
    #expect(resources.map { $0["role"] as? String } == ["photo", "pairedVideo"])
    #expect(
      resources.map { $0["path"] as? String } == [
        "PXL_20240202_100000000.MP.jpg", "PXL_20240202_100000000.MP.jpg",
      ])
    // The still is the whole file: no range.
    #expect(resources[0]["byteRange"] == nil)
    let range = try #require(resources[1]["byteRange"] as? [String: Any])
    #expect(range["offset"] as? Int == 3930 - 2269)
    #expect(range["length"] as? Int == 2269)
    // As written: the range last in its resource, offset before length.
    let written = [
      #"        "role": "pairedVideo","#, #"        "byteRange": {"#, #"          "offset": 1661,"#,
      #"          "length": 2269"#, "        }",
    ].joined(separator: "\n")
    #expect(output.contains(written))
    #expect(google["legacy"] is [String: Any])
  }

  @Test func theTableNamesAMotionPhotosFileOnce() async throws {
    var stdout = TextBuffer()
    var stderr = TextBuffer()
    let status = await DemoCommand.run(
      arguments: ["--format", "table", "--no-progress", Self.motion.path], stdout: &stdout,
      stderr: &stderr)
    #expect(status == 0)
    let rows = stdout.text.split(separator: "\n").filter { $0.hasPrefix("PXL_20240202_100000000") }
    #expect(rows.count == 1)
    #expect(rows.allSatisfy { !$0.contains(", ") }, "\(rows)")
  }
}
