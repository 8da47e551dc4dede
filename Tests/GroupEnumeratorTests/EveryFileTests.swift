import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 4's "every regular file listed exactly once": media no reader takes are assets
/// with a problem, files that are not media (and sidecars that fit no asset) are other
/// files, and sidecars are resources of the asset they belong to.
@Suite struct EveryFileTests {
  /// `(path, role)` of each resource, for whole-value comparisons.
  func roles(_ asset: Asset) -> [String] {
    asset.resources.map { "\($0.path.escaped) \($0.role.rawValue)" }
  }

  @Test @MainActor func filesThatAreNotMediaAreOtherFilesAndMediaNoReaderTakesAreAssets()
    async throws
  {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Other")
    try folder.write(
      "Other/layers.x3f", Array("FOVb".utf8) + [0, 1] + SampleBytes.noise(count: 60))
    try folder.write("Other/notes.txt", Array("Photos from the family.\n".utf8))
    try folder.write("Other/garbage", SampleBytes.noise(count: 300))
    try folder.write("Other/empty", [])
    try folder.write("Other/clip.mpg", SampleBytes.noise(count: 100))
    try folder.write("Other/song.WAV", Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8))
    var times = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0),
    ]
    #expect(utimensat(AT_FDCWD, folder.absolute("Other/layers.x3f"), &times, 0) == 0)
    #expect(utimensat(AT_FDCWD, folder.absolute("Other/notes.txt"), &times, 0) == 0)
    let log = ProgressLog()
    let contents = try await enumerate(folder) { log.record($0, $1) }
    // Named like a photo or video format: assets, whatever no reader takes them.
    #expect(
      contents.assets.map { "\($0.path.escaped) \($0.type.rawValue)" } == [
        "Other/clip.mpg video", "Other/layers.x3f photo",
      ])
    #expect(
      contents.assets.map(\.problems) == [
        [
          AssetProblem(
            .unsupported,
            "'Other/clip.mpg' is a .mpg file, a video format GroupEnumerator does not read;"
              + " it is listed with the file's size and time.")
        ],
        [
          AssetProblem(
            .unsupported,
            "'Other/layers.x3f' is a .x3f file, a photo format GroupEnumerator does not read;"
              + " it is listed with the file's size and time.")
        ],
      ])
    // Each is one resource with no format, dated by its file time, in the folder's album.
    for asset in contents.assets {
      #expect(asset.resources.count == 1)
      #expect(asset.resources.first?.format == nil)
      #expect(asset.creationDate?.source == .fileModificationTime)
      #expect(asset.group == .album)
      #expect(asset.groupPath == LibraryPath("Other"))
    }
    let x3f = try #require(contents.assets.first { $0.name == "layers.x3f" })
    #expect(x3f.fileSize == 66)
    #expect(x3f.creationDate?.date == Date(timeIntervalSince1970: 1_600_000_000))
    // The photo has the five legacy keys, with the defaults.
    #expect(x3f.legacyDictionary.count == 5)
    #expect(x3f.legacyDictionary["photoDateTime"] as? String == "0")
    #expect(contents.groups.map(\.path.escaped) == ["Other"])
    #expect(contents.groups.first?.counts == [.photo: 1, .video: 1])
    log.expectWellFormed(total: 2)
    // Media neither by name nor by content: other files, by path, with their reasons.
    #expect(
      contents.otherFiles.map(\.description) == [
        "notMedia: 'Other/empty' is an empty file (0 bytes), not a photo or video"
          + " GroupEnumerator can read.",
        "notMedia: 'Other/garbage' has no extension and its content is not a photo or video"
          + " GroupEnumerator can read.",
        "notMedia: 'Other/notes.txt' is a .txt file, not a photo or video GroupEnumerator can"
          + " read.",
        // Sound is told by its content (RIFF WAVE), with its own reason.
        "audio: 'Other/song.WAV' is audio (WAV), not a photo or video.",
      ])
    let notes = try #require(contents.otherFiles.first { $0.name == "notes.txt" })
    #expect(notes.fileSize == 24)
    #expect(notes.modificationDate == Date(timeIntervalSince1970: 1_600_000_000))
  }

  @Test @MainActor func aSidecarOfNothingIsAnOtherFileAndNeverRead() async throws {
    // A sidecar of nothing is not an asset; though its bytes are a JPEG with GPS and a
    // date, nothing is read from it.
    let folder = try TemporaryFolder()
    try folder.write("MVI_0001.THM", try sampleBytes(Sample.photoWithGPS))
    let library = AssetsLibrary(root: URL(fileURLWithPath: folder.path))
    let contents = try await library.enumerate()
    #expect(contents.assets.isEmpty)
    #expect(contents.groups.isEmpty)
    let other = try #require(contents.otherFiles.first)
    #expect(contents.otherFiles.count == 1)
    #expect(other.reason == .unmatchedSidecar)
    #expect(other.fileSize == Int64(try sampleBytes(Sample.photoWithGPS).count))
    #expect(
      other.message
        == "'MVI_0001.THM' is a sidecar file (.THM) but no photo or video in its folder is"
        + " named 'MVI_0001', so it is listed on its own; it is not a photo or video"
        + " GroupEnumerator can read.")
    // Looked up by its path: no asset, and the other file says why.
    #expect(try await library.asset(at: LibraryPath("MVI_0001.THM")) == nil)
    #expect(try await library.otherFile(at: LibraryPath("MVI_0001.THM")) == other)
    #expect(try await library.otherFiles() == [other])
  }

  @Test(arguments: [
    "IMG_1.xmp", "img_1.XMP", "IMG_1.JPG.xmp", "img_1.jpg.Xmp", "IMG_1.AAE", "IMG_1.thm",
    "IMG_1.LRV", "IMG_1.lrf",
  ])
  @MainActor func aSidecarIsAResourceOfItsAsset(sidecar: String) async throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    try folder.write("IMG_1.JPG", photo)
    try folder.write(sidecar, Array("<x:xmpmeta/>".utf8))
    try folder.write("IMG_2.JPG", photo)
    let log = ProgressLog()
    let library = AssetsLibrary(root: URL(fileURLWithPath: folder.path))
    let contents = try await library.enumerate { log.record($0, $1) }
    #expect(contents.assets.map(\.name) == ["IMG_1.JPG", "IMG_2.JPG"])
    let asset = try #require(contents.assets.first)
    #expect(roles(asset) == ["IMG_1.JPG photo", "\(sidecar) sidecar"])
    #expect(asset.resources.last?.fileSize == 12)
    #expect(asset.resources.last?.format == nil)
    // The photo is read as without its sidecar; the sidecar's bytes count nowhere.
    #expect(asset.type == .photo)
    #expect(asset.problems.isEmpty)
    #expect(asset.location != nil)
    #expect(asset.fileSize == Int64(photo.count))
    #expect(contents.groups.first?.counts == [.photo: 2])
    log.expectWellFormed(total: 2)
    // A sidecar is not a representation.
    let representations = try await library.representations(for: asset)
    #expect(representations.map(\.filename) == ["IMG_1.JPG"])
  }

  @Test @MainActor func aSidecarOfNothingIsAnOtherFile() async throws {
    let folder = try TemporaryFolder()
    try folder.write("IMG_1.JPG", SampleBytes.jpeg)
    try folder.write("IMG_9.xmp", Array("<x:xmpmeta/>".utf8))
    // The darktable form names the whole file: IMG_1.xmp.xmp is not IMG_1.JPG's.
    try folder.write("IMG_1.xmp.xmp", [])
    // A proxy video of nothing is not a video.
    try folder.write("GX010001.LRV", SampleBytes.mp4)
    let contents = try await enumerate(folder)
    #expect(
      contents.assets.map { "\($0.name) \($0.type.rawValue) \($0.resources.count)" } == [
        "IMG_1.JPG photo 1"
      ])
    #expect(
      contents.otherFiles.map { "\($0.name) \($0.reason.rawValue)" } == [
        "GX010001.LRV unmatchedSidecar", "IMG_1.xmp.xmp unmatchedSidecar",
        "IMG_9.xmp unmatchedSidecar",
      ])
    #expect(
      contents.otherFiles.last?.message
        == "'IMG_9.xmp' is a sidecar file (.xmp) but no photo or video in its folder is named"
        + " 'IMG_9', so it is listed on its own; it is not a photo or video"
        + " GroupEnumerator can read.")
    #expect(contents.groups.first?.counts == [.photo: 1])
  }

  @Test @MainActor func aSidecarThatFitsTwoAssetsIsAnOtherFile() async throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Raw+JPEG")
    try folder.write("Raw+JPEG/IMG_1.JPG", SampleBytes.jpeg)
    try folder.write("Raw+JPEG/IMG_1.png", SampleBytes.png)
    try folder.write("Raw+JPEG/IMG_1.xmp", Array("<x:xmpmeta/>".utf8))
    // The darktable form names one file exactly, so it still attaches.
    try folder.write("Raw+JPEG/IMG_1.png.xmp", Array("<x:xmpmeta/>".utf8))
    let contents = try await enumerate(folder)
    #expect(
      contents.assets.map(roles) == [
        ["Raw+JPEG/IMG_1.JPG photo"],
        ["Raw+JPEG/IMG_1.png photo", "Raw+JPEG/IMG_1.png.xmp sidecar"],
      ])
    #expect(
      contents.otherFiles.map(\.description) == [
        "unmatchedSidecar: 'Raw+JPEG/IMG_1.xmp' is a sidecar file (.xmp) but it fits more"
          + " than one asset in its folder (IMG_1.JPG, IMG_1.png), so it is listed on its own;"
          + " it is not a photo or video GroupEnumerator can read."
      ])
  }

  @Test @MainActor func aSidecarNamedAfterAFileThatIsNotMediaIsAnOtherFile() async throws {
    // notes.xmp fits notes.txt by name, but notes.txt is no asset to attach it to.
    let folder = try TemporaryFolder()
    try folder.write("notes.txt", Array("notes".utf8))
    try folder.write("notes.xmp", Array("<x:xmpmeta/>".utf8))
    let contents = try await enumerate(folder)
    #expect(contents.assets.isEmpty)
    #expect(
      contents.otherFiles.map { "\($0.name) \($0.reason.rawValue)" } == [
        "notes.txt notMedia", "notes.xmp unmatchedSidecar",
      ])
  }

  @Test(arguments: ["IMG_5.MOV", "IMG_5_HEVC.MOV"])
  @MainActor func aLivePhotoKeepsItsSidecars(movieName: String) async throws {
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.liveStill, as: "Live/IMG_5.HEIC")
    try library.add(Sample.liveMovie, as: "Live/\(movieName)")
    try library.write(Array("<plist/>".utf8), as: "Live/IMG_5.AAE")
    try library.write(Array("<x:xmpmeta/>".utf8), as: "Live/IMG_5.HEIC.xmp")
    let log = ProgressLog()
    let engine = AssetsLibrary(root: library.root)
    let contents = try await engine.enumerate { log.record($0, $1) }
    #expect(
      contents.assets.map(roles) == [
        [
          "Live/IMG_5.HEIC photo", "Live/\(movieName) pairedVideo", "Live/IMG_5.AAE sidecar",
          "Live/IMG_5.HEIC.xmp sidecar",
        ]
      ])
    let live = try #require(contents.assets.first)
    #expect(live.type == .livePhoto)
    #expect(live.problems.isEmpty)
    #expect(live.fileSize == Int64(try sampleBytes(Sample.liveStill).count))
    log.expectWellFormed(total: 1)
    #expect(contents.groups.first?.counts == [.livePhoto: 1])
    let representations = try await engine.representations(for: live)
    #expect(representations.map(\.filename) == ["IMG_5.HEIC", movieName])
  }

  @Test @MainActor func aSidecarOfAnUnconfirmedPairStaysWithTheStill() async throws {
    // Named like a Live Photo, but the still has no date to confirm it: two assets, and
    // the sidecar, named after both, goes with the still.
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.photoWithoutMetadata, as: "IMG_8.JPG")
    try library.add(Sample.liveMovie, as: "IMG_8.MOV")
    try library.write(Array("<x:xmpmeta/>".utf8), as: "IMG_8.xmp")
    let contents = try await AssetsLibrary(root: library.root).enumerate()
    #expect(
      contents.assets.map(roles) == [
        ["IMG_8.JPG photo", "IMG_8.xmp sidecar"], ["IMG_8.MOV video"],
      ])
  }

  @Test @MainActor func aFileNamedLikeAStillIsNeverHalfOfALivePhoto() async throws {
    // IMG_5.txt shares the pair's base name; it must not make the still ambiguous.
    let library = try TemporaryFolder()
    defer { library.remove() }
    try library.add(Sample.liveStill, as: "IMG_5.HEIC")
    try library.add(Sample.liveMovie, as: "IMG_5.MOV")
    try library.write(Array("notes".utf8), as: "IMG_5.txt")
    let contents = try await AssetsLibrary(root: library.root).enumerate()
    #expect(contents.assets.map(\.type) == [.livePhoto])
    #expect(contents.assets.map(\.name) == ["IMG_5.HEIC"])
    #expect(contents.otherFiles.map(\.name) == ["IMG_5.txt"])
    #expect(contents.groups.first?.counts == [.livePhoto: 1])
  }

  @Test @MainActor func totalsAndFiltersCountFilesNoReaderTakes() async throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", SampleBytes.jpeg)
    try folder.write("a.xmp", Array("<x:xmpmeta/>".utf8))
    try folder.write("b.psd", Array("8BPS".utf8))
    try folder.write("c.mkv", SampleBytes.noise(count: 64))
    try folder.write("d.flv", Array("FLV".utf8))
    let library = AssetsLibrary(root: URL(fileURLWithPath: folder.path))
    for (filter, names) in [
      (AssetFilter.all, ["a.jpg", "b.psd", "c.mkv", "d.flv"]),
      (.photos, ["a.jpg", "b.psd"]), (.videos, ["c.mkv", "d.flv"]),
    ] {
      let log = ProgressLog()
      let contents = try await library.enumerate(filter: filter) { log.record($0, $1) }
      #expect(contents.assets.map(\.name) == names, "\(filter)")
      log.expectWellFormed(total: names.count)
    }
    let groups = try await library.groups(types: [.savedPhotos, .library])
    #expect(groups.map(\.counts) == [[.photo: 2, .video: 2], [.photo: 2, .video: 2]])
    // c.mkv is named like a container we know, so its content is a problem of that kind.
    let contents = try await library.enumerate(filter: .videos)
    #expect(
      contents.assets.map { $0.problems.map(\.code) } == [[.unrecognizedFormat], [.unsupported]])
  }

  @Test func hiddenFilesStaySkippedUnlessAskedFor() throws {
    let folder = try TemporaryFolder()
    try folder.write("IMG_1.JPG", SampleBytes.jpeg)
    try folder.write(".IMG_1.xmp", [])
    try folder.write(".DS_Store", Array("Bud1".utf8))
    try folder.makeFolder("#recycle")
    try folder.write("#recycle/old.txt", [])
    try folder.write("._IMG_1.xmp", hexBytes("00051607 00020000"))
    #expect(outline(try scan(folder)) == ["savedPhotos", "  IMG_1.JPG photo JPEG"])
    let withHidden = try scan(folder, options: LibraryOptions(includesHiddenFiles: true))
    #expect(
      outline(withHidden) == [
        "savedPhotos", "  IMG_1.JPG photo JPEG", "other .DS_Store notMedia",
        "other .IMG_1.xmp unmatchedSidecar",
      ])
  }

  @Test @MainActor func theSampleLibraryListsItsSidecarsAndNotes() async throws {
    // Fixtures/README.md: 15 assets, two sidecars, notes.txt an other file.
    let contents = try await AssetsLibrary(root: Sample.library).enumerate()
    #expect(contents.assets.count == 15)
    let withSidecars = contents.assets.filter { $0.resources.contains { $0.role == .sidecar } }
    #expect(
      withSidecars.map(roles) == [
        [
          "DCIM/100APPLE/IMG_0200.HEIC photo", "DCIM/100APPLE/IMG_0200.MOV pairedVideo",
          "DCIM/100APPLE/IMG_0200.AAE sidecar",
        ],
        ["Trips/Kyoto 2019/trip-01.jpg photo", "Trips/Kyoto 2019/trip-01.jpg.xmp sidecar"],
      ])
    #expect(withSidecars.map(\.fileSize) == [1102, 1321])
    #expect(contents.otherFiles.map(\.path) == [LibraryPath("Broken/notes.txt")])
    #expect(contents.otherFiles.map(\.reason) == [.notMedia])
  }
}
