import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// A scan as plain text, for whole-value comparisons: one line per group
/// (`savedPhotos ` or `album Trips/Kyoto`), then one indented line per file, each of its
/// sidecars on a line of its own after it (`    + IMG_1.xmp`); then one line per other file
/// (`other notes.txt notMedia`) and per folder problem.
func outline(_ scan: LibraryScan) -> [String] {
  var lines: [String] = []
  for group in scan.groups {
    lines.append(
      "\(group.kind.rawValue) \(group.path.escaped)".trimmingCharacters(in: .whitespaces))
    for file in group.files {
      var line = "  \(file.path.escaped) \(file.type.rawValue) \(file.format?.rawValue ?? "-")"
      if let problem = file.problem { line += " \(problem.code.rawValue)" }
      lines.append(line)
      for sidecar in file.sidecars {
        lines.append("    + \(sidecar.path.escaped) \(sidecar.role.rawValue) \(sidecar.fileSize)")
      }
    }
  }
  for file in scan.otherFiles {
    lines.append("other \(file.path.escaped) \(file.reason.rawValue)")
  }
  for folder in scan.folderProblems {
    lines.append("problem \(folder.path.escaped) \(folder.problem.code.rawValue)")
  }
  return lines
}

/// A scan and then what the readers make of it: files the walk listed by their
/// extension only (``ScannedFile/needsSniffing``) are sniffed as ``AssetReader`` does, so
/// outlines show every file's format whichever step decided it.
func scan(_ folder: TemporaryFolder, options: LibraryOptions = LibraryOptions()) throws
  -> LibraryScan
{
  try resolved(LibraryScanner(root: folder.path, options: options).scan(), root: folder.path)
}

/// `scan` with each file the walk did not sniff sniffed by the reader's own step.
func resolved(_ scan: LibraryScan, root: String) throws -> LibraryScan {
  let libraryRoot = try LibraryRoot(path: root)
  var result = scan
  for index in result.groups.indices {
    result.groups[index].files = result.groups[index].files.map { file in
      guard file.needsSniffing else { return file }
      return AssetReader.sniffAndRead(file, root: libraryRoot).0
    }
  }
  return result
}

@Suite struct ScannerTests {
  @Test func missingRootFails() throws {
    let folder = try TemporaryFolder()
    let root = folder.absolute("never-made")
    #expect(throws: LibraryError.rootNotFound(path: root)) {
      try LibraryScanner(root: root, options: LibraryOptions()).scan()
    }
  }

  @Test func rootThatIsAFileFails() throws {
    let folder = try TemporaryFolder()
    try folder.write("lib", SampleBytes.jpeg)
    let root = folder.absolute("lib")
    #expect(throws: LibraryError.rootNotADirectory(path: root)) {
      try LibraryScanner(root: root, options: LibraryOptions()).scan()
    }
    #expect(throws: LibraryError.rootNotADirectory(path: root + "/sub")) {
      try LibraryScanner(root: root + "/sub", options: LibraryOptions()).scan()
    }
  }

  @Test func rootThatIsALinkToAFolderEnumeratesTheTarget() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("real/Album")
    try folder.write("real/Album/a.jpg", SampleBytes.jpeg)
    try folder.symlink("lib", to: "real")
    let root = folder.absolute("lib")
    let result = try LibraryScanner(root: root, options: LibraryOptions()).scan()
    #expect(
      outline(try resolved(result, root: root)) == ["album Album", "  Album/a.jpg photo JPEG"])
  }

  @Test func emptyFoldersMakeNoGroups() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("Empty/Nested")
    try folder.write(".hidden.txt", Array("hello".utf8))
    #expect(outline(try scan(folder)) == [])
  }

  @Test func groupsCameraRollAndAlbumsInOrder() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("DCIM/100APPLE")
    try folder.makeFolder("Trips/Kyoto 2019/Day 2")
    try folder.makeFolder("Fam\u{ED}lia")
    try folder.makeFolder("Trips/Notes")
    try folder.write("b.jpg", SampleBytes.jpeg)
    try folder.write("a.PNG", SampleBytes.png)
    try folder.write("no-extension", SampleBytes.jpeg)
    try folder.write("README.txt", Array("Photos from the family.\n".utf8))
    try folder.write("meta.json", Array("{}".utf8))
    try folder.write("DCIM/100APPLE/IMG_0002.MOV", SampleBytes.quickTime)
    try folder.write("DCIM/100APPLE/IMG_0001.JPG", SampleBytes.jpeg)
    try folder.write("DCIM/100APPLE/IMG_0001.AAE", Array("<?xml?>".utf8))
    try folder.write("DCIM/x.jpg", SampleBytes.jpeg)
    try folder.write("Trips/Kyoto 2019/temple.jpg", SampleBytes.jpeg)
    try folder.write("Trips/Kyoto 2019/Day 2/clip.mp4", SampleBytes.mp4)
    try folder.write("Trips/Notes/plan.txt", Array("plan".utf8))
    try folder.write("Fam\u{ED}lia/\u{E9}t\u{E9}.jpg", SampleBytes.jpeg)
    #expect(
      outline(try scan(folder)) == [
        "savedPhotos",
        "  DCIM/100APPLE/IMG_0001.JPG photo JPEG",
        "    + DCIM/100APPLE/IMG_0001.AAE sidecar 7",
        "  DCIM/100APPLE/IMG_0002.MOV video MOV",
        "  DCIM/x.jpg photo JPEG",
        "  a.PNG photo PNG",
        "  b.jpg photo JPEG",
        "  no-extension photo JPEG",
        "album Fam\u{ED}lia",
        "  Fam\u{ED}lia/\u{E9}t\u{E9}.jpg photo JPEG",
        "album Trips/Kyoto 2019",
        "  Trips/Kyoto 2019/temple.jpg photo JPEG",
        "album Trips/Kyoto 2019/Day 2",
        "  Trips/Kyoto 2019/Day 2/clip.mp4 video MP4",
        // Files that are not media are no assets, and a folder of them is no album.
        "other README.txt notMedia",
        "other Trips/Notes/plan.txt notMedia",
        "other meta.json notMedia",
      ])
  }

  @Test func dcimMatchesOnlyAtTheTopInAnyCase() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("dcim/100CANON")
    try folder.makeFolder("Backup/DCIM")
    try folder.write("dcim/100CANON/IMG_1.JPG", SampleBytes.jpeg)
    try folder.write("Backup/DCIM/IMG_2.JPG", SampleBytes.jpeg)
    #expect(
      outline(try scan(folder)) == [
        "savedPhotos", "  dcim/100CANON/IMG_1.JPG photo JPEG",
        "album Backup/DCIM", "  Backup/DCIM/IMG_2.JPG photo JPEG",
      ])
  }

  @Test func hiddenAndNASFoldersAreSkipped() throws {
    let folder = try TemporaryFolder()
    for name in ["@eaDir/a.jpg", "#recycle/b.jpg", ".@__thumb/c.jpg", ".thumbnails/d.jpg"] {
      try folder.makeFolder(String(name.prefix { $0 != "/" }))
      try folder.write(name, SampleBytes.jpeg)
    }
    try folder.write(".hidden.jpg", SampleBytes.jpeg)
    try folder.write(
      "._shown.jpg", hexBytes("00051607 00020000") + [UInt8](repeating: 0, count: 40))
    try folder.write("shown.jpg", SampleBytes.jpeg)
    #expect(outline(try scan(folder)) == ["savedPhotos", "  shown.jpg photo JPEG"])
    // With hidden files included, dot names come in, but NAS folders and AppleDouble
    // files never do.
    let withHidden = try scan(folder, options: LibraryOptions(includesHiddenFiles: true))
    #expect(
      outline(withHidden) == [
        "savedPhotos", "  .hidden.jpg photo JPEG", "  shown.jpg photo JPEG",
        "album .thumbnails", "  .thumbnails/d.jpg photo JPEG",
      ])
  }

  @Test func symbolicLinksAreNeverFollowed() throws {
    let outside = try TemporaryFolder()
    try outside.makeFolder("Secret")
    try outside.write("Secret/s.jpg", SampleBytes.jpeg)
    try outside.write("o.jpg", SampleBytes.jpeg)
    let folder = try TemporaryFolder()
    try folder.makeFolder("Album/Sub")
    try folder.write("Album/a.jpg", SampleBytes.jpeg)
    try folder.symlink("file-outside.jpg", to: outside.absolute("o.jpg"))
    try folder.symlink("folder-outside", to: outside.absolute("Secret"))
    try folder.symlink("dangling.jpg", to: "nothing-here.jpg")
    try folder.symlink("Album/Sub/up", to: "..")
    try folder.symlink("Album/Sub/loop", to: "loop")
    try folder.symlink("inside.jpg", to: "Album/a.jpg")
    #expect(outline(try scan(folder)) == ["album Album", "  Album/a.jpg photo JPEG"])
  }

  @Test(.hangLimit)
  func fifoNamedLikeAPhotoIsSkippedWithoutBlocking() throws {
    let folder = try TemporaryFolder()
    try folder.fifo("x.jpg")
    try folder.fifo("no-extension")
    try folder.write("y.jpg", SampleBytes.jpeg)
    let started = ContinuousClock.now
    #expect(outline(try scan(folder)) == ["savedPhotos", "  y.jpg photo JPEG"])
    #expect(ContinuousClock.now - started < .seconds(5))
  }

  @Test func nameThatIsNotUTF8IsListedAndOpenable() throws {
    let folder = try TemporaryFolder()
    let name = Array("bad".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8)
    try folder.write(bytes: name, SampleBytes.jpeg)
    let result = try scan(folder)
    let file = try #require(result.groups.first?.files.first)
    #expect(file.path == LibraryPath(bytes: name))
    #expect(file.path.escaped == "bad%FF%FE.jpg")
    #expect(file.format == .jpeg)
    let root = try LibraryRoot(path: folder.path)
    let header = try LibraryFile.withOpened(root: root, path: file.path) {
      file throws(AssetProblem) in try file.bytes(at: 0, length: 3)
    }
    #expect(header == [0xFF, 0xD8, 0xFF])
  }

  @Test func normalisationTwinsAreBothListed() throws {
    let folder = try TemporaryFolder()
    try folder.write("caf\u{E9}.jpg", SampleBytes.jpeg)
    try folder.write("cafe\u{301}.jpg", SampleBytes.png)
    try folder.write("IMG_1.JPG", SampleBytes.jpeg)
    try folder.write("IMG_1.jpg", SampleBytes.jpeg)
    let files = try #require(try scan(folder).groups.first?.files)
    #expect(files.count == 4)
    #expect(Set(files.map(\.path)).count == 4)
    #expect(
      files.map(\.path) == [
        LibraryPath("IMG_1.JPG"), LibraryPath("IMG_1.jpg"), LibraryPath("cafe\u{301}.jpg"),
        LibraryPath("caf\u{E9}.jpg"),
      ])
    #expect(files.map(\.format) == [.jpeg, .jpeg, .png, .jpeg])
  }

  @Test func contentDecidesAndBadMediaIsListedWithAProblem() throws {
    let folder = try TemporaryFolder()
    try folder.write("movie.jpg", SampleBytes.quickTime)
    try folder.write("empty.jpg", [])
    try folder.write("empty.mov", [])
    try folder.write("empty.txt", [])
    try folder.write("noise.jpg", SampleBytes.noise(count: 4096))
    try folder.write("noise.bin", SampleBytes.noise(count: 4096))
    try folder.write("picture.dng", hexBytes("49492a00 08000000 1900fe00"))
    try folder.write("MVI_0001.THM", SampleBytes.jpeg)
    #expect(
      outline(try scan(folder)) == [
        "savedPhotos",
        "  empty.jpg photo - emptyFile",
        "  empty.mov video - emptyFile",
        // Counted by its name (a photo), read by its content (a movie): see
        // EngineTests.aMovieNamedLikeAPhotoIsCountedByNameAndReadAsAMovie.
        "  movie.jpg photo MOV",
        "  noise.jpg photo - unrecognizedFormat",
        "  picture.dng photo RAW",
        // A sidecar of nothing (no MVI_0001.* here) is an other file, unread, as are files
        // that are media neither by name nor by content.
        "other MVI_0001.THM unmatchedSidecar",
        "other empty.txt notMedia",
        "other noise.bin notMedia",
      ])
    let files = try #require(try scan(folder).groups.first?.files)
    let noise = try #require(files.first { $0.path == LibraryPath("noise.jpg") })
    #expect(noise.fileSize == 4096)
    #expect(noise.problem?.message.contains("not JPEG") == true)
  }

  @Test func sizesAndTimesComeFromTheFile() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", SampleBytes.jpeg + [UInt8](repeating: 0, count: 100))
    var times = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0),
      timespec(tv_sec: 1_500_000_000, tv_nsec: 250_000_000),
    ]
    #expect(utimensat(AT_FDCWD, folder.absolute("a.jpg"), &times, 0) == 0)
    let file = try #require(try scan(folder).groups.first?.files.first)
    #expect(file.fileSize == Int64(SampleBytes.jpeg.count + 100))
    #expect(file.modificationDate == Date(timeIntervalSince1970: 1_500_000_000.25))
  }

  @Test func hardLinksAreTwoFiles() throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", SampleBytes.jpeg)
    #expect(link(folder.absolute("a.jpg"), folder.absolute("b.jpg")) == 0)
    #expect(
      outline(try scan(folder)) == ["savedPhotos", "  a.jpg photo JPEG", "  b.jpg photo JPEG"])
  }

  @Test func orderIsDeterministic() throws {
    let folder = try TemporaryFolder()
    for album in ["Zeta", "alpha", "Beta/b", "Beta/a", "Beta"] {
      try folder.makeFolder(album)
      for index in [3, 1, 2] {
        try folder.write("\(album)/\(index).jpg", SampleBytes.jpeg)
      }
    }
    let first = try scan(folder)
    let second = try scan(folder)
    #expect(first.groups == second.groups)
    #expect(first.groups.map(\.path.escaped) == ["Beta", "Beta/a", "Beta/b", "Zeta", "alpha"])
    for group in first.groups {
      #expect(group.files.map(\.path.lastComponent) == ["1.jpg", "2.jpg", "3.jpg"])
    }
  }

  @Test func deepFoldersAreReportedBeyondTheDepthLimit() throws {
    let folder = try TemporaryFolder()
    let depth = LibraryScanner.maximumDepth + 1
    let deepest = Array(repeating: "d", count: depth).joined(separator: "/")
    try folder.makeFolder(deepest)
    try folder.write(deepest + "/too-deep.jpg", SampleBytes.jpeg)
    let allowed = Array(repeating: "d", count: depth - 1).joined(separator: "/")
    try folder.write(allowed + "/deep.jpg", SampleBytes.jpeg)
    #expect(
      outline(try scan(folder)) == [
        "album \(allowed)", "  \(allowed)/deep.jpg photo JPEG",
        "problem \(deepest) unreadableFolder",
      ])
  }

  @Test func pathsLongerThanPathMaxAreWalked() throws {
    // 100 folders of 60 bytes: 6,100 bytes, more than PATH_MAX (4,096).
    let folder = try TemporaryFolder()
    let component = String(repeating: "x", count: 60)
    var descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
    for _ in 0..<100 {
      #expect(mkdirat(descriptor, component, 0o755) == 0)
      let next = openat(descriptor, component, O_RDONLY | O_DIRECTORY)
      close(descriptor)
      descriptor = next
    }
    let file = openat(descriptor, "deep.jpg", O_WRONLY | O_CREAT, 0o644)
    _ = SampleBytes.jpeg.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
    close(file)
    close(descriptor)
    let files = try scan(folder).groups.flatMap(\.files)
    #expect(files.count == 1)
    #expect(files.first?.path.bytes.count == 100 * 61 + "deep.jpg".utf8.count)
    #expect(files.first?.format == .jpeg)
  }

  @Test func cancellationStopsTheWalk() throws {
    let folder = try TemporaryFolder()
    for album in 0..<5 {
      try folder.makeFolder("A\(album)")
      try folder.write("A\(album)/x.jpg", SampleBytes.jpeg)
    }
    #expect(throws: LibraryError.cancelled) {
      try LibraryScanner(root: folder.path, options: LibraryOptions()).scan { true }
    }
    var polls = 0
    #expect(throws: LibraryError.cancelled) {
      try LibraryScanner(root: folder.path, options: LibraryOptions()).scan {
        polls += 1
        return polls > 2
      }
    }
    #expect(polls == 3)
  }

  @Test func noDescriptorOutlivesAScan() throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("A/B/C")
    try folder.write("A/B/C/x.jpg", SampleBytes.jpeg)
    try folder.fifo("A/f.jpg")
    var polls = 0
    let counting = LibraryScanner(root: folder.path, options: LibraryOptions())
    // Cancelled deep inside the tree: every folder on the path must be closed.
    _ = try? counting.scan {
      polls += 1
      return polls > 3
    }
    let descriptors = try openDescriptors(under: folder.path)
    _ = try? counting.scan {
      polls += 1
      return polls > 7
    }
    _ = try counting.scan()
    #expect(try openDescriptors(under: folder.path) == descriptors)
    #expect(descriptors.count == 0)
  }

  /// This process's descriptors of anything under `path`.
  private func openDescriptors(under path: String) throws -> Set<String> {
    let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
    return Set(
      names.compactMap { name in
        let target = try? FileManager.default.destinationOfSymbolicLink(
          atPath: "/proc/self/fd/" + name)
        return target.flatMap { $0.hasPrefix(path) ? name + $0 : nil }
      })
  }
}
