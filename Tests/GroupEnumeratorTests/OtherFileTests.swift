import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

/// Issue 11 item 8, "only media are assets": files that are photos or videos neither by
/// name nor by content, and sidecars that fit no asset, are ``OtherFile``s; media no
/// reader takes stay assets with the full legacy dictionary.
@Suite struct OtherFileTests {
  /// `Fixtures/Phones/Other`: files exiftool, Windows and scanners leave in photo folders.
  static let phoneOthers = Sample.library.deletingLastPathComponent()
    .appendingPathComponent("Phones/Other")

  /// A library of the kinds of file a user's photo folder holds:
  ///
  /// - `Junk/`: `Thumbs.db` and `desktop.ini` only (so no album);
  /// - `Mixed/`: a JPEG with GPS, a Sigma X3F (its real `FOVb` magic, then bytes no reader
  ///   takes), a RED `.R3D` of noise, a text file, a PDF and an XMP sidecar of nothing.
  static func mixedLibrary() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Junk")
    try folder.makeFolder("Mixed")
    for (name, destination) in [
      ("Thumbs.db", "Junk/Thumbs.db"), ("desktop.ini", "Junk/desktop.ini"),
      ("notes.txt", "Mixed/notes.txt"), ("scan.pdf", "Mixed/scan.pdf"),
    ] {
      let bytes = [UInt8](try Data(contentsOf: phoneOthers.appendingPathComponent(name)))
      try folder.write(destination, bytes)
    }
    try folder.add(Sample.photoWithGPS, as: "Mixed/IMG_1.JPG")
    // X3F: "FOVb", version 2.2 (little-endian), then what no reader here understands.
    try folder.write(
      "Mixed/SDIM0001.X3F",
      Array("FOVb".utf8) + [0x02, 0x00, 0x02, 0x00] + SampleBytes.noise(count: 256))
    try folder.write("Mixed/A001_C001.R3D", SampleBytes.noise(count: 512))
    try folder.write("Mixed/orphan.xmp", Array("<x:xmpmeta/>".utf8))
    return folder
  }

  @Test @MainActor func onlyTheMediaAreAssetsAndTheRestAreOtherFilesWithTheirReasons()
    async throws
  {
    let folder = try OtherFileTests.mixedLibrary()
    let log = ProgressLog()
    let contents = try await enumerate(folder) { log.record($0, $1) }
    #expect(
      contents.assets.map { "\($0.path.escaped) \($0.type.rawValue)" } == [
        "Mixed/A001_C001.R3D video", "Mixed/IMG_1.JPG photo", "Mixed/SDIM0001.X3F photo",
      ])
    log.expectWellFormed(total: 3)
    let jpeg = try #require(contents.assets.first { $0.name == "IMG_1.JPG" })
    #expect(jpeg.problems.isEmpty)
    #expect(jpeg.location != nil)
    // The media no reader takes say so, and are dated by their file time.
    let x3f = try #require(contents.assets.first { $0.name == "SDIM0001.X3F" })
    #expect(
      x3f.problems == [
        AssetProblem(
          .unsupported,
          "'Mixed/SDIM0001.X3F' is a .X3F file, a photo format GroupEnumerator does not read;"
            + " it is listed with the file's size and time.")
      ])
    #expect(x3f.creationDate?.source == .fileModificationTime)
    #expect(x3f.fileSize == 264)
    let r3d = try #require(contents.assets.first { $0.name == "A001_C001.R3D" })
    #expect(r3d.problems.map(\.code) == [.unsupported])
    // Every photo, the X3F too, has the five legacy keys; the X3F's are the defaults.
    let legacy = x3f.legacyDictionary
    #expect(
      Set(legacy.keys) == [
        "photoDefaultPath", "photoThumPath", "photoName", "photoGPS", "photoDateTime",
      ])
    #expect(legacy["photoDefaultPath"] as? String == x3f.urlString)
    #expect(legacy["photoThumPath"] as? String == x3f.urlString)
    #expect(legacy["photoName"] as? String == "SDIM0001.X3F")
    #expect(legacy["photoDateTime"] as? String == "0")
    #expect(
      legacy["photoGPS"] as? [String: String] == ["Latitude": "0.0", "Longitude": "0.0"])
    // The rest are other files, by path, each with its reason and size.
    #expect(
      contents.otherFiles.map { "\($0.path.escaped) \($0.reason.rawValue) \($0.fileSize)" } == [
        "Junk/Thumbs.db notMedia 512", "Junk/desktop.ini notMedia 69",
        "Mixed/notes.txt notMedia 28", "Mixed/orphan.xmp unmatchedSidecar 12",
        "Mixed/scan.pdf notMedia 69",
      ])
    #expect(
      contents.otherFiles.first { $0.name == "scan.pdf" }?.message
        == "'Mixed/scan.pdf' is a .pdf file, not a photo or video GroupEnumerator can read.")
    // Groups and counts leave them out: Junk, with only other files, is no album.
    #expect(contents.groups.map(\.path.escaped) == ["Mixed"])
    #expect(contents.groups.first?.counts == [.photo: 2, .video: 1])
  }

  @Test @MainActor func groupsCountsAndTheLegacyCallLeaveOtherFilesOut() async throws {
    let folder = try OtherFileTests.mixedLibrary()
    let library = AssetsLibrary(root: folder.root)
    let groups = try await library.groups(types: [.all, .library])
    #expect(groups.map(\.kind) == [.album, .library])
    #expect(groups.map(\.counts) == [[.photo: 2, .video: 1], [.photo: 2, .video: 1]])
    let album = try #require(groups.first)
    #expect(
      try await library.assets(in: album).map(\.name) == [
        "A001_C001.R3D", "IMG_1.JPG", "SDIM0001.X3F",
      ])
    // The legacy call hands over the two photos, each with its five keys.
    let handed = await withCheckedContinuation { continuation in
      library.systemPhotoAlbumPhoto(
        success: { continuation.resume(returning: $0.map { $0["photoName"] as? String }) },
        progress: { _, _ in }, fail: { _ in continuation.resume(returning: []) })
    }
    #expect(handed == ["IMG_1.JPG", "SDIM0001.X3F"])
  }

  @Test @MainActor func theALAssetsGroupStyleEnumerationLeavesOtherFilesOut() async throws {
    let folder = try OtherFileTests.mixedLibrary()
    let walk = GroupWalk()
    await AssetsLibrary(root: folder.root).enumerateGroups(
      types: [.all, .library],
      using: { group, _ in
        if let group { walk.groups.append(group) } else { walk.closingCalls += 1 }
      },
      failure: { walk.failures.append($0) }
    ).wait()
    #expect(walk.closingCalls == 1)
    let groups = walk.groups
    #expect(groups.map(\.name) == ["Mixed", "All Photos"])
    #expect(groups.map(\.numberOfAssets) == [3, 3])
    var names: [String] = []
    groups.first?.enumerateAssets { asset, _, _ in
      if let asset { names.append(asset.name) }
    }
    #expect(names == ["A001_C001.R3D", "IMG_1.JPG", "SDIM0001.X3F"])
  }

  @Test @MainActor func streamingDeliversAssetsAndTheSummaryHoldsTheOtherFiles() async throws {
    let folder = try OtherFileTests.mixedLibrary()
    let library = AssetsLibrary(root: folder.root)
    let contents = try await library.enumerate()
    let delivered = Delivered()
    let summary = try await library.streamAssets(
      prepare: { $0.path }, deliver: { delivered.append($0) })
    #expect(delivered.paths == contents.assets.map(\.path))
    #expect(summary.assetCount == 3)
    #expect(summary.otherFiles == contents.otherFiles)
    var streamed: [LibraryPath] = []
    for try await asset in library.assets() { streamed.append(asset.path) }
    #expect(streamed == contents.assets.map(\.path))
    #expect(try await library.otherFiles() == contents.otherFiles)
  }

  @Test @MainActor func aLookupOfAnOtherFileFindsNoAssetAndSaysWhy() async throws {
    let folder = try OtherFileTests.mixedLibrary()
    let library = AssetsLibrary(root: folder.root)
    let path = LibraryPath("Mixed/notes.txt")
    #expect(try await library.asset(at: path) == nil)
    let url = try #require(
      URL(
        string:
          "assets-library://asset/asset.txt?id=\(StableIdentifier.uuid(namespace: "asset", path: path).uuidString)&ext=txt"
      ))
    #expect(try await library.asset(for: url) == nil)
    let other = try #require(try await library.otherFile(at: path))
    #expect(other.reason == .notMedia)
    #expect(other.description.hasPrefix("notMedia: 'Mixed/notes.txt' is a .txt file"))
    // An asset's path is no other file, and neither is a path with nothing there.
    #expect(try await library.otherFile(at: LibraryPath("Mixed/IMG_1.JPG")) == nil)
    #expect(try await library.otherFile(at: LibraryPath("Mixed/nothing.txt")) == nil)
    #expect(try await library.asset(at: LibraryPath("Mixed/SDIM0001.X3F"))?.type == .photo)
  }

  @Test @MainActor func theExtensionSelectionAppliesToOtherFilesToo() async throws {
    let folder = try OtherFileTests.mixedLibrary()
    let library = AssetsLibrary(
      root: folder.root,
      options: LibraryOptions(selection: FileSelection(extensions: ["jpg", "pdf"])))
    let contents = try await library.enumerate()
    #expect(contents.assets.map(\.name) == ["IMG_1.JPG"])
    #expect(contents.otherFiles.map(\.name) == ["scan.pdf"])
  }
}

/// What a streamed enumeration delivered, in order.
private final class Delivered: Sendable {
  private let state = Mutex<[LibraryPath]>([])

  var paths: [LibraryPath] { state.withLock { $0 } }

  func append(_ path: LibraryPath) -> Bool {
    state.withLock { $0.append(path) }
    return true
  }
}
