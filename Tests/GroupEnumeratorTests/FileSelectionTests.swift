import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct FileSelectionTests {
  @Test(arguments: [
    ("a.jpg", true), ("A.JPG", true), ("b.Heic", true), ("c.png", false), ("jpg", false),
    (".jpg", false), ("d.jpg.xmp", false), ("Trips/e.jpeg", false), ("Trips/f.JpG", true),
  ])
  func extensionsMatchTheLastExtensionIgnoringCase(path: String, isIncluded: Bool) {
    let selection = FileSelection(extensions: ["jpg", ".HEIC"])
    #expect(selection.includesFile(at: LibraryPath(path)) == isIncluded)
    #expect(selection.extensions == ["jpg", "HEIC"])
  }

  @Test(arguments: [
    // A pattern without `/` matches a name at any depth.
    ("Trash", "Trash", true, true), ("Trash", "Albums/Trash", true, true),
    ("Trash", "Albums/Trashcan", true, false), ("*.mov", "DCIM/IMG_1.MOV", false, false),
    ("*.mov", "DCIM/IMG_1.mov", false, true), ("IMG_?.jpg", "a/IMG_1.jpg", false, true),
    ("[ab]*", "Albums/b.jpg", false, true), ("[!ab]*", "Albums/b.jpg", false, false),
    // A pattern with `/` matches the whole path; `*` stops at `/`.
    ("Trips/Kyoto 2019", "Trips/Kyoto 2019", true, true),
    ("Trips/Kyoto 2019", "Old/Trips/Kyoto 2019", true, false),
    ("/Trash", "Trash", true, true), ("/Trash", "Albums/Trash", true, false),
    ("DCIM/*/IMG_9*", "DCIM/100APPLE/IMG_9001.JPG", false, true),
    ("DCIM/*", "DCIM/100APPLE/IMG_9001.JPG", false, false),
    // A pattern ending in `/` matches folders only.
    ("Raw/", "Raw", true, true), ("Raw/", "Raw", false, false),
  ])
  func patternsMatchNamesOrWholePaths(
    pattern: String, path: String, isFolder: Bool, isExcluded: Bool
  ) {
    let selection = FileSelection(excluding: [pattern])
    let path = LibraryPath(path)
    let isIncluded =
      isFolder ? selection.includesFolder(at: path) : selection.includesFile(at: path)
    #expect(isIncluded == !isExcluded)
  }

  @Test func anEmptySelectionKeepsEverything() {
    #expect(FileSelection.all.selectsEverything)
    #expect(FileSelection(excluding: ["", "/"]).selectsEverything)
    #expect(!FileSelection(extensions: ["jpg"]).selectsEverything)
    #expect(FileSelection.all.includesFile(at: LibraryPath("a/no-extension")))
    #expect(FileSelection.all.includesFolder(at: LibraryPath("a")))
    #expect(LibraryOptions().selection == .all)
  }

  @Test func nameBytesThatAreNotUTF8AreMatchedAsBytes() {
    let selection = FileSelection(excluding: ["*.jpg"])
    #expect(!selection.includesFile(at: LibraryPath(bytes: [0xFF, 0x2E, 0x6A, 0x70, 0x67])))
    #expect(selection.includesFile(at: LibraryPath(bytes: [0xFF, 0x2E, 0x70, 0x6E, 0x67])))
  }

  @Test func theWalkKeepsSelectedFilesWithTheirSidecarsAndSkipsExcludedFolders() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Trips/Kyoto")
    try folder.makeFolder("Trash/Old")
    try folder.write("IMG_1.JPG", SampleBytes.jpeg)
    try folder.write("IMG_1.xmp", Array("<x/>".utf8))
    try folder.write("orphan.xmp", Array("<x/>".utf8))
    try folder.write("a.png", SampleBytes.png)
    try folder.write("clip.mov", SampleBytes.quickTime)
    try folder.write("Trips/Kyoto/temple.jpg", SampleBytes.jpeg)
    try folder.write("Trips/Kyoto/notes.txt", Array("notes".utf8))
    try folder.write("Trash/gone.jpg", SampleBytes.jpeg)
    try folder.write("Trash/Old/gone.jpg", SampleBytes.jpeg)
    let selection = FileSelection(extensions: ["jpg", "mov"], excluding: ["Trash"])
    var listed: [String] = []
    let scanned = try resolved(
      LibraryScanner(root: folder.path, options: LibraryOptions(selection: selection))
        .scan(in: LibraryRoot(path: folder.path), didListFolder: { listed.append($0.escaped) }),
      root: folder.path)
    #expect(
      outline(scanned) == [
        "savedPhotos",
        "  IMG_1.JPG photo JPEG",
        "    + IMG_1.xmp sidecar 4",
        "  clip.mov video MOV",
        "album Trips/Kyoto",
        "  Trips/Kyoto/temple.jpg photo JPEG",
      ])
    #expect(listed.sorted() == ["", "Trips", "Trips/Kyoto"])
    // Without a selection the same library has more.
    let everything = outline(try scan(folder))
    #expect(everything.contains("other orphan.xmp unmatchedSidecar"))
    #expect(everything.contains("album Trash"))
  }

  @Test func aLivePhotoIsOneAssetOnlyWhenBothHalvesAreSelected() async throws {
    let library = AssetsLibrary(
      root: Sample.library,
      options: LibraryOptions(selection: FileSelection(extensions: ["heic", "MOV"])))
    let contents = try await library.enumerate()
    #expect(
      contents.assets.map(\.path.escaped) == [
        "DCIM/100APPLE/IMG_0102.MOV", "DCIM/100APPLE/IMG_0200.HEIC",
      ])
    #expect(contents.assets.map(\.type) == [.video, .livePhoto])
    let groups = try await library.groups(types: [.all, .library])
    #expect(groups.last?.counts == [.video: 1, .livePhoto: 1])

    let stillsOnly = AssetsLibrary(
      root: Sample.library,
      options: LibraryOptions(selection: FileSelection(extensions: ["heic"])))
    let stills = try await stillsOnly.enumerate()
    #expect(stills.assets.map(\.path.escaped) == ["DCIM/100APPLE/IMG_0200.HEIC"])
    #expect(stills.assets.map(\.type) == [.photo])
  }
}
