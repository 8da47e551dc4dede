import Foundation
import Glibc
import GroupEnumerator
import Testing

@testable import Demo

/// The listing is written as the assets arrive: every format gives the same bytes as
/// formatting the whole list, and ndjson is one object per line.
@MainActor @Suite struct StreamedOutputTests {
  private func samples() throws -> [Asset] {
    [
      try SampleAssets.photoWithGPS(), SampleAssets.photoWithoutGPS(), try SampleAssets.video(),
      try SampleAssets.livePhoto(), try SampleAssets.livePhotoWithSidecars(),
    ]
  }

  private func streamed(_ writer: some ListingWriter, _ assets: [Asset]) -> String {
    var writer = writer
    var stream = TextBuffer()
    writer.begin(to: &stream)
    for asset in assets { writer.write(writer.prepare(asset), to: &stream) }
    writer.finish(ListingEnd(folderProblems: []), to: &stream)
    return stream.text
  }

  @Test func streamedJSONIsTheSameTextAsTheWholeArray() throws {
    let assets = try samples()
    #expect(streamed(JSONListingWriter(), assets) == JSONFormatter.format(assets: assets))
    #expect(streamed(JSONListingWriter(), []) == "[]\n")
    #expect(streamed(JSONListingWriter(), []) == JSONFormatter.format(assets: []))
  }

  @Test func streamedCSVIsTheSameTextAsTheWholeTable() throws {
    let assets = try samples()
    #expect(streamed(CSVListingWriter(), assets) == CSVFormatter.format(assets: assets))
    #expect(streamed(CSVListingWriter(), []) == CSVFormatter.format(assets: []))
  }

  @Test func aStreamedTableUnderItsWindowIsTheSameTextAsTheWholeTable() throws {
    let assets = try samples()
    let strings = Strings(language: .english)
    #expect(
      streamed(TableListingWriter(strings: strings), assets)
        == TableFormatter(strings: strings).format(assets: assets))
  }

  @Test func rowsAfterTheWindowKeepTheWindowsWidths() throws {
    let strings = Strings(language: .english)
    let short = try SampleAssets.photoWithGPS()
    let longName = String(repeating: "n", count: 80) + ".JPG"
    let path = LibraryPath(longName)
    let long = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1)],
      fileModificationDate: short.fileModificationDate, metadata: short.metadata)
    let assets = Array(repeating: short, count: TableListingWriter.window) + [long, short]
    let lines = streamed(TableListingWriter(strings: strings), assets).split(separator: "\n")
    // Header, rule, the rows, then the summary after an empty line (split drops it).
    #expect(lines.count == 2 + assets.count + 1)
    let first = lines[2]
    let afterLong = lines[2 + assets.count - 1]
    #expect(afterLong == first)
    // The long name pushes the rest of its own row to the right, two spaces on.
    #expect(lines[2 + assets.count - 2].hasPrefix(longName + "  Camera Roll"))
  }

  @Test func aFittedStreamedTableCutsALongRowAfterTheWindowToTheWindowsWidths() throws {
    let strings = Strings(language: .english)
    let short = try SampleAssets.photoWithGPS()
    let longName = String(repeating: "n", count: 80) + ".JPG"
    let path = LibraryPath(longName)
    let long = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1)],
      fileModificationDate: short.fileModificationDate, metadata: short.metadata)
    let assets = Array(repeating: short, count: TableListingWriter.window) + [long, short]
    let lines = streamed(TableListingWriter(strings: strings, maximumWidth: 100), assets)
      .split(separator: "\n")
    #expect(lines.allSatisfy { DisplayWidth.of(String($0)) <= 100 })
    let cut = lines[2 + assets.count - 2]
    #expect(cut.hasPrefix("nnnnnn…n.JPG  Camera Ro…  "), "\(cut)")
    #expect(cut.dropFirst(12) == lines[2].dropFirst(12))
    let few = try samples()
    #expect(
      streamed(TableListingWriter(strings: strings, maximumWidth: 70), few)
        == TableFormatter(strings: strings, maximumWidth: 70).format(assets: few))
  }

  @Test func ndjsonIsOneCompactObjectPerLineWithTheKeysOfJSON() throws {
    let assets = try samples()
    let text = streamed(NDJSONListingWriter(), assets)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == assets.count + 1 && lines.last == "")
    for (line, asset) in zip(lines, assets) {
      let fromLine = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
      let fromJSON =
        try JSONSerialization.jsonObject(with: Data(JSONFormatter.object(for: asset).utf8))
        as? NSDictionary
      #expect(fromLine != nil && fromLine == fromJSON)
    }
  }

  @Test func ndjsonEndsWithALinePerFolderProblem() throws {
    let writer = NDJSONListingWriter()
    var stream = TextBuffer()
    let problem = AssetProblem(.unreadableFolder, "Cannot read the folder 'a\u{1B}'.")
    writer.finish(
      ListingEnd(folderProblems: [(path: LibraryPath("a\u{1B}"), problem: problem)]),
      to: &stream)
    #expect(
      stream.text
        == #"{"type":"folderProblem","path":"a\u001b","problem":"unreadableFolder: Cannot read the folder 'a\u001b'."}"#
        + "\n")
  }

  @Test(arguments: [([String](), 15), (["--include-other"], 16)])
  func theBundledLibraryGivesAsManyNDJSONLinesAsJSONElements(
    options: [String], count: Int
  ) async throws {
    var json = TextBuffer()
    var ndjson = TextBuffer()
    var stderr = TextBuffer()
    #expect(
      await DemoCommand.run(
        arguments: ["--format", "json"] + options, stdout: &json, stderr: &stderr) == 0)
    #expect(
      await DemoCommand.run(
        arguments: ["--format", "ndjson"] + options, stdout: &ndjson, stderr: &stderr) == 0)
    let array = try #require(
      try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [NSDictionary])
    let lines = ndjson.text.split(separator: "\n")
    // Fixtures/README.md: 15 assets, and the other file Broken/notes.txt.
    #expect(array.count == count && lines.count == array.count)
    for (line, object) in zip(lines, array) {
      #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary == object)
    }
    #expect(stderr.text.isEmpty)
  }

  @Test func anIdentifierWithANULIsAUsageError() async {
    var stdout = TextBuffer()
    var stderr = TextBuffer()
    let url = "assets-library://asset/asset.JPG?id=00000000-0000-0000-0000-000000000000%00&ext=JPG"
    #expect(
      await DemoCommand.run(arguments: ["lookup", url], stdout: &stdout, stderr: &stderr) == 64)
    #expect(stdout.text.isEmpty)
  }
}

/// Calls `body` with `bytes` as a NUL-terminated C path.
private func withCPath<Result>(
  _ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result
) -> Result? {
  (bytes + [0]).withUnsafeBufferPointer { buffer in
    buffer.withMemoryRebound(to: CChar.self) { path in path.baseAddress.map(body) }
  }
}

extension TemporaryFolder {
  /// The names in the folder.
  fileprivate var entries: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }
}

/// `thumbnail --output`: never a partial file, never over an existing one without
/// `--force`, never through a link.
@Suite struct ThumbnailFileTests {
  private let bytes = Data([0xFF, 0xD8, 0xFF, 0xD9])

  @Test func aNewFileGetsTheBytesAndNoTemporaryFileStays() throws {
    let scratch = try TemporaryFolder("StreamedOutputTests")
    try ThumbnailFile.write(bytes, to: scratch.path + "/t.jpg", replacing: false)
    #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/t.jpg")) == bytes)
    #expect(scratch.entries == ["t.jpg"])
  }

  @Test func anExistingFileIsKeptWithoutForceAndReplacedWithIt() throws {
    let scratch = try TemporaryFolder("StreamedOutputTests")
    let target = scratch.path + "/t.jpg"
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    #expect(
      throws: ThumbnailFile.Failure(reason: "the file already exists; add --force to replace it")
    ) {
      try ThumbnailFile.write(bytes, to: target, replacing: false)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("old".utf8))
    try ThumbnailFile.write(bytes, to: target, replacing: true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
    #expect(scratch.entries == ["t.jpg"])
  }

  @Test func aLinkOrADeviceAtTheOutputIsRefusedEvenWithForce() throws {
    let scratch = try TemporaryFolder("StreamedOutputTests")
    let victim = scratch.path + "/victim"
    try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
    let link = scratch.path + "/t.jpg"
    #expect(symlink(victim, link) == 0)
    for replacing in [false, true] {
      #expect(
        throws: ThumbnailFile.Failure(
          reason: "it is a symbolic link; name the file itself, not a link")
      ) {
        try ThumbnailFile.write(bytes, to: link, replacing: replacing)
      }
      #expect(
        throws: ThumbnailFile.Failure(
          reason: "it is not a regular file (a device, a FIFO or a socket)")
      ) {
        try ThumbnailFile.write(bytes, to: "/dev/null", replacing: replacing)
      }
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("keep".utf8))
    #expect(Set(scratch.entries) == ["victim", "t.jpg"])
  }

  @Test func aFolderOrAMissingFolderIsAPlainMessage() throws {
    let scratch = try TemporaryFolder("StreamedOutputTests")
    #expect(throws: ThumbnailFile.Failure(reason: "it is a folder; name a file inside it")) {
      try ThumbnailFile.write(bytes, to: scratch.path, replacing: true)
    }
    #expect(throws: ThumbnailFile.Failure(reason: "the folder does not exist")) {
      try ThumbnailFile.write(bytes, to: scratch.path + "/nope/t.jpg", replacing: false)
    }
    #expect(ThumbnailFile.failure(errno: ENOSPC).reason == "the disk is full")
    #expect(scratch.entries.isEmpty)
  }
}

/// The library argument is opened from its bytes, so a folder whose name is not UTF-8
/// is no obstacle.
@Suite struct LibraryLocationTests {
  @Test func aLibraryBelowAFolderNamedFFOpensAndIsNamedWithPercentFF() async throws {
    let scratch = try TemporaryFolder("StreamedOutputTests")
    let parent = Array(scratch.path.utf8) + [UInt8(ascii: "/"), 0xFF]
    let library = parent + Array("/library".utf8)
    for folder in [parent, library] {
      #expect(withCPath(folder) { mkdir($0, 0o755) } == 0)
    }
    let photo = try Data(
      contentsOf: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0001.JPG"))
    let file = String(decoding: library, as: UTF8.self)  // only to check it is not there
    #expect(!FileManager.default.fileExists(atPath: file))
    let location = try LibraryLocation(bytes: library)
    let descriptor = try #require(
      withCPath(library + Array("/a.jpg".utf8)) { open($0, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) })
    try #require(descriptor >= 0)
    _ = photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    let contents = try await location.library.enumerate()
    #expect(contents.assets.map(\.name) == ["a.jpg"])
    #expect(location.displayPath.hasSuffix("/%FF/library"))
  }

  @Test func aMissingLibraryIsNamedInTheErrorAsTyped() throws {
    #expect(throws: LibraryError.rootNotFound(path: "/nonexistent-%FF")) {
      _ = try LibraryLocation(bytes: Array("/nonexistent-".utf8) + [0xFF])
    }
    #expect(throws: LibraryError.rootNotADirectory(path: "/dev/null")) {
      _ = try LibraryLocation(bytes: Array("/dev/null".utf8))
    }
  }

  @Test func theRawArgumentIsFoundForTheTextTheParserSaw() {
    let raw: [[UInt8]] = [Array("--format".utf8), Array("json".utf8), Array("/a/".utf8) + [0xFF]]
    let text = String(decoding: raw[2], as: UTF8.self)
    #expect(LibraryLocation.bytes(of: text, in: raw) == raw[2])
    let inline: [[UInt8]] = [Array("lookup".utf8), Array("--library=/b".utf8) + [0xFE]]
    #expect(
      LibraryLocation.bytes(
        of: String(decoding: Array("/b".utf8) + [0xFE], as: UTF8.self), in: inline)
        == Array("/b".utf8) + [0xFE])
    #expect(LibraryLocation.bytes(of: "plain", in: []) == Array("plain".utf8))
  }
}
