import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// The Demo's side of "only media are assets": the table counts the other files on its
/// last line, and `--include-other` lists them after the assets, by path, in every format.
@MainActor
@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs Fixtures/Library"))
struct OtherFileListingTests {
  /// A temporary library: `Mixed/` holds a JPEG (from Fixtures/Library), an X3F no reader
  /// takes, a text file, a PDF-named file and an XMP sidecar of nothing; `Junk/` only
  /// `Thumbs.db`. Removed when the value goes away.
  final class MixedLibrary {
    let folder: TemporaryFolder
    var path: String { folder.path }

    init() throws {
      folder = try TemporaryFolder("OtherFileListingTests")
      let files = FileManager.default
      try files.createDirectory(atPath: path + "/Mixed", withIntermediateDirectories: true)
      try files.createDirectory(atPath: path + "/Junk", withIntermediateDirectories: true)
      try files.copyItem(
        atPath: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG").path,
        toPath: path + "/Mixed/IMG_1.JPG")
      let contents: [(String, [UInt8])] = [
        (
          "Mixed/SDIM0001.X3F",
          Array("FOVb".utf8) + [0x02, 0x00, 0x02, 0x00] + [UInt8](repeating: 0x5A, count: 64)
        ),
        ("Mixed/notes.txt", Array("Holiday notes.\n".utf8)),
        ("Mixed/scan.pdf", Array("%PDF-1.4\n%%EOF\n".utf8)),
        ("Mixed/orphan.xmp", Array("<x:xmpmeta/>".utf8)),
        ("Junk/Thumbs.db", [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]),
      ]
      for (name, bytes) in contents {
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
      }
    }
  }

  /// The other files, by path, as every format lists them.
  private static let otherPaths = [
    "Junk/Thumbs.db", "Mixed/notes.txt", "Mixed/orphan.xmp", "Mixed/scan.pdf",
  ]

  @Test func theTableCountsTheOtherFilesOnItsLastLineAndListsNone() async throws {
    let library = try MixedLibrary()
    let outcome = await run([library.path])
    #expect(outcome.status == 0)
    #expect(outcome.stderr.isEmpty)
    let lines = outcome.stdout.split(separator: "\n")
    #expect(
      lines.suffix(2) == [
        "2 assets (2 photos, 0 videos), 1 with problems",
        "4 other files not listed (--include-other)",
      ])
    #expect(lines.count == 2 + 2 + 2)  // header, rule, two rows, then the two lines
    for path in OtherFileListingTests.otherPaths {
      #expect(!outcome.stdout.contains(path.split(separator: "/").last ?? ""), "\(path)")
    }
    // Localized like the summary.
    let japanese = await run(["--lang", "ja", library.path])
    #expect(
      japanese.stdout.hasSuffix("その他のファイル 4 件は表示していません(--include-other)\n"))
    let chinese = await run(["--lang", "zh-Hans", library.path])
    #expect(chinese.stdout.hasSuffix("另有 4 个其他文件未列出(--include-other)\n"))
  }

  @Test func theCountLineSaysFileForOne() {
    let english = Strings(language: .english)
    #expect(english.otherFiles(1, listed: false) == "1 other file not listed (--include-other)")
    #expect(english.otherFiles(1, listed: true) == "1 other file listed (not photos or videos)")
    #expect(english.otherFiles(2, listed: true) == "2 other files listed (not photos or videos)")
  }

  @Test func theBundledLibraryCountsItsOneOtherFile() async throws {
    let outcome = await run(["--no-progress"])
    #expect(outcome.status == 0)
    #expect(outcome.stdout.hasSuffix("\n1 other file not listed (--include-other)\n"))
  }

  @Test func aLibraryWithoutOtherFilesHasNoSuchLine() async throws {
    let library = try MixedLibrary()
    for path in OtherFileListingTests.otherPaths {
      try FileManager.default.removeItem(atPath: library.path + "/" + path)
    }
    let outcome = await run([library.path])
    #expect(outcome.status == 0)
    #expect(outcome.stdout.hasSuffix("\n2 assets (2 photos, 0 videos), 1 with problems\n"))
    #expect(!outcome.stdout.contains("other file"))
  }

  @Test func includeOtherListsThemAfterTheAssetsInTheTable() async throws {
    let library = try MixedLibrary()
    let outcome = await run(["--include-other", library.path])
    #expect(outcome.status == 0)
    let rows = outcome.stdout.split(separator: "\n").dropFirst(2).map {
      $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }
    #expect(
      rows.prefix(6).map { $0.first ?? "" } == [
        "IMG_1.JPG", "SDIM0001.X3F", "Junk/Thumbs.db", "Mixed/notes.txt", "Mixed/orphan.xmp",
        "Mixed/scan.pdf",
      ])
    // An other file's row: (other) for the group, its reason's code for the problem.
    #expect(
      rows.dropFirst(2).prefix(4).map { [$0[1], $0.last ?? ""] } == [
        ["(other)", "notMedia"], ["(other)", "notMedia"], ["(other)", "unmatchedSidecar"],
        ["(other)", "notMedia"],
      ])
    #expect(
      outcome.stdout.hasSuffix(
        "\n2 assets (2 photos, 0 videos), 1 with problems\n"
          + "4 other files listed (not photos or videos)\n"))
  }

  @Test func includeOtherListsThemInJSONAndNDJSONWithTypeOther() async throws {
    let library = try MixedLibrary()
    let json = await run(["--format", "json", "--include-other", library.path])
    #expect(json.status == 0)
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(
      entries.map { "\($0["path"] as? String ?? "?") \($0["type"] as? String ?? "?")" } == [
        "Mixed/IMG_1.JPG photo", "Mixed/SDIM0001.X3F photo", "Junk/Thumbs.db other",
        "Mixed/notes.txt other", "Mixed/orphan.xmp other", "Mixed/scan.pdf other",
      ])
    #expect(
      entries.dropFirst(2).map { $0["reason"] as? String } == [
        "notMedia", "notMedia", "unmatchedSidecar", "notMedia",
      ])
    #expect(entries[3]["fileSize"] as? Int == 15)
    #expect(
      entries[4]["message"] as? String
        == "'Mixed/orphan.xmp' is a sidecar file (.xmp) but no photo or video in its folder is"
        + " named 'orphan', so it is listed on its own; it is not a photo or video"
        + " GroupEnumerator can read.")
    // The unreadable X3F is a photo with the whole legacy dictionary.
    let legacy = try #require(entries[1]["legacy"] as? [String: Any])
    #expect(legacy.count == 5)
    #expect(legacy["photoDateTime"] as? String == "0")

    let ndjson = await run(["--format", "ndjson", "--include-other", library.path])
    #expect(ndjson.status == 0)
    let lines = ndjson.stdout.split(separator: "\n")
    #expect(lines.count == entries.count)
    for (line, entry) in zip(lines, entries) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
      #expect(object == entry as NSDictionary)
    }
    // Without the option, only the assets.
    let plain = await run(["--format", "ndjson", library.path])
    #expect(plain.stdout.split(separator: "\n").count == 2)
    #expect(!plain.stdout.contains("\"other\""))
  }

  @Test func includeOtherListsThemInCSVWithTheReasonInProblems() async throws {
    let library = try MixedLibrary()
    let csv = await run(["--format", "csv", "--include-other", library.path])
    #expect(csv.status == 0)
    let records = csv.stdout.split(separator: "\r\n").map(String.init)
    #expect(records.count == 1 + 2 + 4)
    let others = records.suffix(4)
    #expect(
      others.first
        == ",,Junk/Thumbs.db,Thumbs.db,,other,,,,,,,,,,,,8,,,,,\"[\"\"notMedia: 'Junk/Thumbs.db' is"
        + " a .db file, not a photo or video GroupEnumerator can read.\"\"]\"")
    #expect(
      others.map { String($0.split(separator: ",", omittingEmptySubsequences: false)[2]) }
        == OtherFileListingTests.otherPaths)
    let plain = await run(["--format", "csv", library.path])
    #expect(plain.stdout.split(separator: "\r\n").count == 1 + 2)
  }

  @Test func groupsLeaveOtherFilesOutAndAFolderOfThemIsNoAlbum() async throws {
    let library = try MixedLibrary()
    let outcome = await run(["groups", "--format", "csv", library.path])
    #expect(outcome.status == 0)
    let records = outcome.stdout.split(separator: "\r\n")
    #expect(records.count == 3)  // header, Mixed, All Photos
    #expect(records.dropFirst().first?.contains(",Mixed,album,Mixed,2,2,0,0") == true)
    #expect(!outcome.stdout.contains("Junk"))
  }

  @Test func aLookupOfAnOtherFileExitsOneAndSaysWhy() async throws {
    let library = try MixedLibrary()
    let outcome = await run(["lookup", "Mixed/notes.txt", library.path])
    #expect(outcome.status == 1)
    #expect(outcome.stdout.isEmpty)
    #expect(
      outcome.stderr
        == "Error: 'Mixed/notes.txt' is not a photo or video, so it is not an asset:"
        + " 'Mixed/notes.txt' is a .txt file, not a photo or video GroupEnumerator can read.\n")
    let x3f = await run(["lookup", "Mixed/SDIM0001.X3F", library.path])
    #expect(x3f.status == 0)
    #expect(x3f.stdout.contains("\"unsupported: 'Mixed/SDIM0001.X3F' is a .X3F file"))
  }
}
