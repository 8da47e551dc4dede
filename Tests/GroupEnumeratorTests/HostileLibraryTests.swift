import Foundation
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

// Hostile libraries (docs/Robustness.md): each test builds its library at test time and
// asserts the exact outcome through the whole engine (`AssetsLibrary.enumerate`), not
// merely that nothing crashed. Rows already covered at the scanner level live in
// ScannerTests and LibraryFileTests.

/// The bytes of a committed sample file.
func sampleBytes(_ fixture: String) throws -> [UInt8] {
  [UInt8](try Data(contentsOf: Sample.library.appendingPathComponent(fixture)))
}

/// Enumerates `folder` with `width` readers.
func enumerate(
  _ folder: TemporaryFolder, width: Int = 2,
  progress: @escaping @MainActor @Sendable (Int, Int) -> Void = { _, _ in }
) async throws -> AssetsLibrary.Contents {
  let library = AssetsLibrary(
    root: URL(fileURLWithPath: folder.path), options: LibraryOptions(maximumConcurrency: width))
  return try await library.enumerate(progress: progress)
}

/// This process's open descriptors of anything under `path` (other tests run in the same
/// process at the same time, so only descriptors of this test's own folder are counted).
func openDescriptors(under path: String) throws -> [String] {
  let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
  return names.compactMap { name in
    let target = try? FileManager.default.destinationOfSymbolicLink(
      atPath: "/proc/self/fd/" + name)
    return target.flatMap { $0.hasPrefix(path) ? $0 : nil }
  }.sorted()
}

/// The problem codes of the asset at `path`, or `nil` when no such asset was listed.
func problemCodes(_ contents: AssetsLibrary.Contents, _ path: String) -> [AssetProblem.Code]? {
  contents.assets.first { $0.path == LibraryPath(path) }?.problems.map(\.code)
}

@Suite struct HostileFileSystemTests {
  @Test func hardLinksAreTwoAssetsWithDistinctIdentifiers() async throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", try sampleBytes(Sample.photoWithGPS))
    #expect(link(folder.absolute("a.jpg"), folder.absolute("b.jpg")) == 0)
    let contents = try await enumerate(folder)
    #expect(contents.assets.map(\.path) == [LibraryPath("a.jpg"), LibraryPath("b.jpg")])
    let (first, second) = (contents.assets[0], contents.assets[1])
    #expect(first.id != second.id)
    #expect(first.metadata == second.metadata)
    #expect(first.location != nil)
    #expect(first.problems.isEmpty && second.problems.isEmpty)
  }

  @Test(.hangLimit)
  func aSocketNamedLikeAPhotoIsSkipped() async throws {
    let folder = try TemporaryFolder()
    try folder.write("real.jpg", SampleBytes.jpeg)
    let socketPath = folder.absolute("socket.jpg")
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(listener >= 0)
    defer { close(listener) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let pathBytes = Array(socketPath.utf8)
    try #require(pathBytes.count < MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0)
    let contents = try await enumerate(folder)
    #expect(contents.assets.map(\.path) == [LibraryPath("real.jpg")])
    #expect(contents.folderProblems.isEmpty)
  }

  /// `/dev/zero`'s device number, major 1 minor 5 (glibc's `makedev` is a macro).
  static let devZero = dev_t(1 << 8 | 5)

  /// Whether this process may make device nodes (root outside a restricted container).
  static let canMakeDevices: Bool = {
    guard let folder = try? TemporaryFolder("mknod-probe") else { return false }
    return mknod(folder.absolute("probe"), S_IFCHR | 0o644, devZero) == 0
  }()

  @Test(
    .enabled(if: canMakeDevices, "mknod needs CAP_MKNOD"), .hangLimit)
  func aCharacterDeviceNamedLikeAPhotoIsSkippedUnread() async throws {
    let folder = try TemporaryFolder()
    try folder.write("real.jpg", SampleBytes.jpeg)
    // A /dev/zero clone: a reader that does not check the file type never finishes.
    #expect(mknod(folder.absolute("zero.jpg"), S_IFCHR | 0o644, Self.devZero) == 0)
    let contents = try await enumerate(folder)
    #expect(contents.assets.map(\.path) == [LibraryPath("real.jpg")])
  }

  @Test func aFileDeletedBetweenScanAndReadHasVanished() async throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", try sampleBytes(Sample.photoWithGPS))
    try folder.write("b.jpg", try sampleBytes(Sample.photoWithGPS))
    let path = folder.absolute("a.jpg")
    // The first progress call, (0, total), comes after the scan and before any read.
    let contents = try await enumerate(folder) { current, _ in
      if current == 0 { unlink(path) }
    }
    #expect(problemCodes(contents, "a.jpg") == [.vanished])
    #expect(problemCodes(contents, "b.jpg") == [])
    let vanished = try #require(contents.assets.first)
    #expect(vanished.location == nil)
    #expect(vanished.creationDate?.source == .fileModificationTime)
  }

  @Test(.hangLimit)
  func aFileReplacedByALinkOrAFIFOAfterTheScanIsNotRead() async throws {
    let outside = try TemporaryFolder()
    try outside.write("secret.jpg", try sampleBytes(Sample.photoWithGPS))
    let folder = try TemporaryFolder()
    for name in ["link.jpg", "fifo.jpg", "folder.jpg", "kept.jpg"] {
      try folder.write(name, try sampleBytes(Sample.photoWithoutMetadata))
    }
    let (link, fifo, dir) = (
      folder.absolute("link.jpg"), folder.absolute("fifo.jpg"), folder.absolute("folder.jpg")
    )
    let secret = outside.absolute("secret.jpg")
    let contents = try await enumerate(folder) { current, _ in
      guard current == 0 else { return }
      unlink(link)
      symlink(secret, link)
      unlink(fifo)
      mkfifo(fifo, 0o644)
      unlink(dir)
      mkdir(dir, 0o755)
    }
    #expect(problemCodes(contents, "link.jpg") == [.notRegularFile])
    #expect(problemCodes(contents, "fifo.jpg") == [.notRegularFile])
    #expect(problemCodes(contents, "folder.jpg") == [.notRegularFile])
    #expect(problemCodes(contents, "kept.jpg") == [])
    // The outside file has GPS; nothing of it may show up.
    #expect(contents.assets.allSatisfy { $0.location == nil })
  }

  @Test func aFolderSwappedForALinkMidWalkIsNotEntered() throws {
    let outside = try TemporaryFolder()
    try outside.makeFolder("Deeper")
    try outside.write("secret.jpg", SampleBytes.jpeg)
    try outside.write("Deeper/secret2.jpg", SampleBytes.jpeg)
    let folder = try TemporaryFolder()
    try folder.makeFolder("A/B")
    try folder.write("A/a.jpg", SampleBytes.jpeg)
    try folder.write("A/B/b.jpg", SampleBytes.jpeg)
    try folder.makeFolder("Z")
    try folder.write("Z/z.jpg", SampleBytes.jpeg)
    var swaps: [String] = []
    let root = try LibraryRoot(path: folder.path)
    let result = try LibraryScanner(root: folder.path, options: LibraryOptions()).scan(
      in: root,
      didListFolder: { path in
        // After the root is listed, `Z` is swapped; after `A` is listed, `A/B` is.
        let victim = path.isRoot ? "Z" : path == LibraryPath("A") ? "A/B" : nil
        guard let victim else { return }
        if rename(folder.absolute(victim), folder.absolute(victim + "-old")) == 0,
          symlink(outside.path, folder.absolute(victim)) == 0
        {
          swaps.append(victim)
        }
      })
    #expect(swaps == ["Z", "A/B"])
    #expect(
      outline(try resolved(result, root: folder.path)) == ["album A", "  A/a.jpg photo JPEG"])
  }

  @Test func namesThatAreNotUTF8GoThroughTheEngineAndBackByURL() async throws {
    let folder = try TemporaryFolder()
    let name = Array("bad".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8)
    try folder.write(bytes: name, try sampleBytes(Sample.photoWithGPS))
    let album = Array("Alb".utf8) + [0xC3, 0x28]
    let albumPath = folder.absolute(album).map { CChar(bitPattern: $0) } + [0]
    #expect(mkdir(albumPath, 0o755) == 0)
    try folder.write(bytes: album + Array("/x.jpg".utf8), try sampleBytes(Sample.photoWithGPS))
    let contents = try await enumerate(folder)
    #expect(
      contents.assets.map(\.path.escaped) == ["bad%FF%FE.jpg", "Alb%C3(/x.jpg"])
    for asset in contents.assets {
      #expect(asset.problems.isEmpty, "\(asset.path)")
      #expect(asset.location != nil, "\(asset.path)")
      let library = AssetsLibrary(root: URL(fileURLWithPath: folder.path))
      let found = try await library.asset(for: asset.url)
      #expect(found == asset)
    }
    #expect(contents.groups.map(\.path.escaped) == ["", "Alb%C3("])
  }

  @Test func normalisationAndCaseTwinsAreDistinctAssets() async throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    for name in ["caf\u{E9}.jpg", "cafe\u{301}.jpg", "IMG_1.JPG", "IMG_1.jpg"] {
      try folder.write(name, photo)
    }
    let contents = try await enumerate(folder)
    #expect(contents.assets.count == 4)
    #expect(Set(contents.assets.map(\.id)).count == 4)
    #expect(Set(contents.assets.map(\.url)).count == 4)
    let library = AssetsLibrary(root: URL(fileURLWithPath: folder.path))
    for asset in contents.assets {
      #expect(try await library.asset(for: asset.url)?.path == asset.path)
    }
  }

  @Test func namesOf255BytesAreRead() async throws {
    let folder = try TemporaryFolder()
    let ascii = String(repeating: "a", count: 251) + ".jpg"
    let twoByte = String(repeating: "\u{E9}", count: 125) + "x.jpg"
    #expect(ascii.utf8.count == 255 && twoByte.utf8.count == 255)
    let photo = try sampleBytes(Sample.photoWithGPS)
    try folder.write(ascii, photo)
    try folder.write(twoByte, photo)
    let contents = try await enumerate(folder)
    #expect(contents.assets.map(\.path) == [LibraryPath(ascii), LibraryPath(twoByte)])
    for asset in contents.assets {
      #expect(asset.problems.isEmpty)
      #expect(asset.location != nil)
    }
  }

  @Test func aFileDeeperThanPathMaxIsReadLikeAnyOther() async throws {
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
    let photo = try sampleBytes(Sample.photoWithGPS)
    let file = openat(descriptor, "deep.jpg", O_WRONLY | O_CREAT, 0o644)
    #expect(photo.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) } == photo.count)
    close(file)
    close(descriptor)
    let contents = try await enumerate(folder)
    let asset = try #require(contents.assets.first)
    #expect(contents.assets.count == 1)
    #expect(asset.path.bytes.count == 100 * 61 + "deep.jpg".utf8.count)
    #expect(asset.problems == [])
    #expect(asset.location != nil)
    #expect(asset.creationDate?.source == .exifDateTimeOriginal)
  }

  @Test(.hangLimit)
  @MainActor func aLibraryOfOnlySkippedEntriesSucceedsEmpty() async throws {
    let folder = try TemporaryFolder()
    try folder.write(".hidden.jpg", SampleBytes.jpeg)
    try folder.write(".notes.txt", Array("hello".utf8))
    try folder.write("._IMG_0001.jpg", [0x00, 0x05, 0x16, 0x07, 0, 2, 0, 0])
    try folder.makeFolder("@eaDir")
    try folder.write("@eaDir/notes.txt", Array("hello".utf8))
    try folder.fifo("pipe")
    try folder.symlink("link.txt", to: ".notes.txt")
    try folder.makeFolder("Empty/Also empty")
    let log = ProgressLog()
    let contents = try await enumerate(folder) { log.record($0, $1) }
    #expect(contents.assets.isEmpty)
    #expect(contents.groups.isEmpty)
    #expect(contents.folderProblems.isEmpty)
    #expect(log.calls.map { [$0.current, $0.total] } == [[0, 0]])
  }

  @Test(.hangLimit)
  @MainActor func aLibraryOfOnlyNonMediaHasNoAssetsAndListsEachOtherFile() async throws {
    let folder = try TemporaryFolder()
    try folder.write("notes.txt", Array("hello".utf8))
    try folder.write("noise.bin", SampleBytes.noise(count: 4096))
    try folder.write(".hidden.jpg", SampleBytes.jpeg)
    try folder.write("MVI_0001.THM", SampleBytes.jpeg)
    try folder.write("._IMG_0001.jpg", [0x00, 0x05, 0x16, 0x07, 0, 2, 0, 0])
    try folder.fifo("pipe")
    try folder.symlink("link.jpg", to: "notes.txt")
    try folder.makeFolder("Empty/Also empty")
    let log = ProgressLog()
    let contents = try await enumerate(folder) { log.record($0, $1) }
    #expect(contents.assets.isEmpty)
    #expect(
      contents.otherFiles.map { "\($0.path.escaped) \($0.reason.rawValue)" } == [
        "MVI_0001.THM unmatchedSidecar", "noise.bin notMedia", "notes.txt notMedia",
      ])
    #expect(contents.groups.isEmpty)
    #expect(contents.folderProblems.isEmpty)
    log.expectWellFormed(total: 0)
  }
}

@Suite struct HostileResourceTests {
  @Test(.hangLimit)
  @MainActor func noDescriptorOutlivesARunWhateverItsEnd() async throws {
    let folder = try TemporaryFolder()
    try folder.makeFolder("A/B")
    for index in 0..<1000 {
      try folder.write("A/\(index).jpg", try sampleBytes(Sample.photoWithGPS))
    }
    try folder.write("A/B/broken.jpg", try sampleBytes(Sample.truncatedJPEG))
    try folder.write("A/B/empty.jpg", [])
    try folder.write("A/B/noise.jpg", SampleBytes.noise(count: 4096))
    try folder.fifo("A/B/fifo.jpg")
    try folder.write("a-file", [])
    let before = try openDescriptors(under: folder.path)
    #expect(before.isEmpty)

    // Success, with per-asset problems (`a-file` is an other file).
    let contents = try await enumerate(folder)
    #expect(contents.assets.count == 1003)
    #expect(contents.otherFiles.map(\.name) == ["a-file"])
    #expect(try openDescriptors(under: folder.path) == before)

    // Library-level failures.
    for root in [folder.absolute("missing"), folder.absolute("a-file")] {
      let library = AssetsLibrary(root: URL(fileURLWithPath: root))
      await #expect(throws: LibraryError.self) { try await library.enumerate() }
      #expect(try openDescriptors(under: folder.path) == before)
    }

    // Cancelled mid-read, from the progress callback. Progress calls may be coalesced: on a
    // loaded machine a run can end before any call falls between 0 and total, and then it
    // succeeds. Descriptors are checked after every attempt; a cancellation must land in
    // one of them.
    let library = AssetsLibrary(
      root: URL(fileURLWithPath: folder.path), options: LibraryOptions(maximumConcurrency: 2))
    var cancelled = false
    for _ in 0..<5 where !cancelled {
      let run = RunHandle()
      run.start {
        try await library.enumerate { current, total in
          if current < total { run.cancel() }
        }
      }
      do {
        let finished = try await run.value()
        #expect(finished.assets.count == 1003)
      } catch {
        #expect(error as? LibraryError == .cancelled)
        cancelled = true
      }
      let after = try openDescriptors(under: folder.path)
      #expect(after == before, "\(after)")
    }
    #expect(cancelled)

  }
}

/// An enumeration running in its own task that a progress callback may cancel.
final class RunHandle: Sendable {
  private let task = Mutex<Task<AssetsLibrary.Contents, any Error>?>(nil)

  /// Starts `body` in a new task.
  func start(_ body: @escaping @Sendable () async throws -> AssetsLibrary.Contents) {
    let started = Task { try await body() }
    task.withLock { $0 = started }
  }

  /// Cancels the task.
  func cancel() { task.withLock { $0?.cancel() } }

  /// The task's result.
  func value() async throws -> AssetsLibrary.Contents {
    guard let running = task.withLock({ $0 }) else { throw CancellationError() }
    return try await running.value
  }
}

/// Bad media as real files through the whole engine.
@Suite struct HostileMediaTests {
  /// What the engine must report for one file.
  struct Expected: CustomStringConvertible {
    var name: String
    var bytes: [UInt8]
    var problems: [AssetProblem.Code]
    var dateSource: CaptureDate.Source = .fileModificationTime
    var hasLocation = false

    var description: String { name }
  }

  static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

  /// A builder with a good date and a GPS position, for mutation.
  static func goodBuilder() -> EXIFTestBuilder {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x010F, .ascii("Camera"))]
    builder.exif = [(0x9003, .ascii("2012:03:04 05:06:07"))]
    builder.gps = [
      (0x0001, .ascii("N")), (0x0002, .rational([(10, 1), (0, 1), (0, 1)])),
      (0x0003, .ascii("E")), (0x0004, .rational([(20, 1), (0, 1), (0, 1)])),
    ]
    return builder
  }

  static func withGPS(latitude: EXIFTestBuilder.Value, reference: String = "N") -> [UInt8] {
    var builder = goodBuilder()
    builder.gps[0] = (0x0001, .ascii(reference))
    builder.gps[1] = (0x0002, latitude)
    return builder.jpeg()
  }

  static func withDate(_ value: EXIFTestBuilder.Value) -> [UInt8] {
    var builder = goodBuilder()
    builder.exif = [(0x9003, value)]
    return builder.jpeg()
  }

  static func cases() -> [Expected] {
    var samsung = goodBuilder()
    samsung.ifd0 = [
      (0x010F, .ascii("SAMSUNG")), (0x0201, .raw(type: 4, count: 1, field: 0x00FF_FFFF)),
      (0x0202, .long([1000])),
    ]
    var countPastEnd = samsung.tiff()
    countPastEnd[8] = 0xFF
    countPastEnd[9] = 0xFF
    var selfPointing = EXIFTestBuilder()
    selfPointing.ifd0 = [
      (0x0201, .raw(type: 4, count: 1, field: 0xFFFF_FFFF)),
      (0x8769, .raw(type: 4, count: 1, field: 8)), (0x8825, .raw(type: 4, count: 1, field: 8)),
    ]
    var hugeCounts = goodBuilder()
    hugeCounts.exif = [
      (0x9003, .raw(type: 2, count: 20, field: 0x00FF_FFFF)),
      (0x9011, .raw(type: 5, count: 0x2000_0001, field: 16)),
    ]
    let good = goodBuilder().jpeg()
    var cases: [Expected] = [
      Expected(
        name: "control.jpg", bytes: good, problems: [], dateSource: .exifDateTimeOriginal,
        hasLocation: true),
      Expected(name: "m01-empty.jpg", bytes: [], problems: [.emptyFile]),
      Expected(
        name: "m02-random.jpg", bytes: SampleBytes.noise(count: 4096),
        problems: [.unrecognizedFormat]),
      Expected(name: "m03-soi-only.jpg", bytes: [0xFF, 0xD8, 0xFF], problems: [.truncated]),
      Expected(
        name: "m03-app1-past-end.jpg",
        bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + exifHeader + [0x49, 0x49, 0x2A, 0],
        problems: [.truncated]),
      Expected(
        name: "m03-app1-length-1.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0xFF, 0xD9],
        problems: [.malformed]),
      Expected(
        // The tags that can be read are kept, with a warning.
        name: "m05-count-ffff.jpg", bytes: EXIFTestBuilder.jpeg(app1: exifHeader + countPastEnd),
        problems: [.malformed], dateSource: .exifDateTimeOriginal, hasLocation: true),
      Expected(name: "m06-self-pointing.jpg", bytes: selfPointing.jpeg(), problems: [.malformed]),
      Expected(
        // Both tags are dropped (the date with them), the position is kept.
        name: "m07-huge-counts.jpg", bytes: hugeCounts.jpeg(), problems: [.malformed],
        hasLocation: true),
      Expected(
        name: "m08-samsung.jpg", bytes: samsung.jpeg(), problems: [.malformed],
        dateSource: .exifDateTimeOriginal, hasLocation: true),
      Expected(
        name: "m09-zero-denominator.jpg",
        bytes: withGPS(latitude: .rational([(10, 0), (0, 1), (0, 1)])), problems: [.invalidValue],
        dateSource: .exifDateTimeOriginal),
      Expected(
        name: "m10-out-of-range.jpg",
        bytes: withGPS(latitude: .rational([(500, 1), (75, 1), (99, 1)])),
        problems: [.invalidValue], dateSource: .exifDateTimeOriginal),
      Expected(
        name: "m10-all-ones.jpg",
        bytes: withGPS(latitude: .rational([(0xFFFF_FFFF, 1), (0, 1), (0, 1)])),
        problems: [.invalidValue], dateSource: .exifDateTimeOriginal),
      Expected(
        name: "m11-reference-x.jpg",
        bytes: withGPS(latitude: .rational([(10, 1), (0, 1), (0, 1)]), reference: "X"),
        problems: [.invalidValue], dateSource: .exifDateTimeOriginal),
      Expected(
        name: "m11-wrong-type.jpg", bytes: withGPS(latitude: .short([10, 0, 0])),
        problems: [.invalidValue], dateSource: .exifDateTimeOriginal),
      Expected(
        name: "m12-int32-min.jpg",
        bytes: withGPS(latitude: .signedRational([(Int32(1), Int32.min), (0, 1), (0, 1)])),
        problems: [.invalidValue], dateSource: .exifDateTimeOriginal),
    ]
    let badDates: [(String, EXIFTestBuilder.Value)] = [
      ("zeros", .ascii("0000:00:00 00:00:00")), ("blanks", .ascii("    :  :     :  :  ")),
      ("month-13", .ascii("2020:13:45 25:61:61")), ("february-30", .ascii("2020:02:30 00:00:00")),
      ("year-only", .ascii("2020")), ("trailing-garbage", .ascii("2020:01:01 00:00:00 junk")),
      ("not-utf8", .asciiBytes(Array("2020:01:01 00:00:".utf8) + [0xFF, 0xFE, 0])),
    ]
    for (name, value) in badDates {
      cases.append(
        Expected(
          name: "m13-\(name).jpg", bytes: withDate(value), problems: [.invalidValue],
          hasLocation: true))
    }
    cases.append(
      Expected(
        name: "m13-no-nul.jpg",
        bytes: withDate(.asciiBytes(Array("2020:01:01 00:00:00".utf8))), problems: [],
        dateSource: .exifDateTimeOriginal, hasLocation: true))
    return cases
  }

  @Test func eachBadFileHasItsExactOutcome() async throws {
    let folder = try TemporaryFolder()
    let cases = Self.cases()
    for item in cases { try folder.write(item.name, item.bytes) }
    let contents = try await enumerate(folder)
    #expect(contents.assets.count == cases.count)
    for item in cases {
      let asset = try #require(
        contents.assets.first { $0.path == LibraryPath(item.name) }, "\(item)")
      #expect(asset.problems.map(\.code) == item.problems, "\(item): \(asset.problems)")
      #expect(asset.creationDate?.source == item.dateSource, "\(item)")
      #expect((asset.location != nil) == item.hasLocation, "\(item)")
      #expect(asset.problems.allSatisfy { !$0.message.isEmpty }, "\(item)")
    }
  }

  @Test func aJPEGTruncatedAtEveryOffsetIsReadWithoutAHang() async throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    // The end of the APP1 (EXIF) segment: the date and position need all of it.
    let app1End = try #require(Self.endOfAPP1(photo))
    for length in 0...photo.count {
      try folder.write("p\(length).jpg", Array(photo.prefix(length)))
    }
    let contents = try await enumerate(folder)
    #expect(contents.assets.count == photo.count + 1)
    for asset in contents.assets {
      let length = try #require(Int(asset.path.lastComponent.dropFirst().dropLast(4)))
      let complete = length >= app1End
      #expect((asset.location != nil) == complete, "prefix \(length)")
      #expect((asset.metadata.dateTimeOriginal != nil) == complete, "prefix \(length)")
      if !complete { #expect(!asset.problems.isEmpty, "prefix \(length)") }
    }
  }

  /// The offset just past the first APP1 segment of `jpeg`.
  static func endOfAPP1(_ jpeg: [UInt8]) -> Int? {
    var index = 2
    while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
      let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
      if jpeg[index + 1] == 0xE1 { return index + 2 + length }
      index += 2 + length
    }
    return nil
  }
}

/// Cancellation and concurrent runs through the engine.
@Suite struct HostileConcurrencyTests {
  @Test(.hangLimit)
  @MainActor func cancellingFromAnotherTaskStopsWithinABoundedNumberOfEvents() async throws {
    let folder = try TemporaryFolder()
    let photo = try sampleBytes(Sample.photoWithGPS)
    try folder.makeFolder("Many")
    for index in 0..<200 { try folder.write("Many/\(index).jpg", photo) }
    let library = AssetsLibrary(
      root: URL(fileURLWithPath: folder.path), options: LibraryOptions(maximumConcurrency: 2))
    let log = ProgressLog()
    let run = RunHandle()
    let cancelled = DispatchSemaphore(value: 0)
    run.start {
      try await library.enumerate { current, total in
        log.record(current, total)
        guard current == 0 else { return }
        // The run waits here, between its scan and its reads, while another task cancels
        // it: so the cancellation is known to land mid-way, whatever the machine's load.
        Task.detached {
          run.cancel()
          cancelled.signal()
        }
        #expect(cancelled.wait(timeout: .now() + 10) == .success)
      }
    }
    await #expect(throws: LibraryError.cancelled) { try await run.value() }
    // Nothing was delivered after the cancellation: not a single file's progress.
    #expect(log.calls.map { [$0.current, $0.total] } == [[0, 200]])
  }

  @Test(.hangLimit)
  func concurrentRunsOfOneLibraryAgreeWithASerialRun() async throws {
    let folder = try TemporaryFolder()
    try FileManager.default.removeItem(atPath: folder.path)
    try FileManager.default.copyItem(atPath: Sample.library.path, toPath: folder.path)
    try folder.write("Broken/noise.jpg", SampleBytes.noise(count: 4096))
    try folder.fifo("Broken/fifo.jpg")
    let root = URL(fileURLWithPath: folder.path)
    let library = AssetsLibrary(root: root, options: LibraryOptions(maximumConcurrency: 2))
    let serial = try await library.enumerate()
    #expect(serial.assets.count == 16)  // Fixtures/README.md: 15, plus noise.jpg.
    async let first = library.enumerate()
    async let second = library.enumerate()
    async let other = AssetsLibrary(root: root, options: LibraryOptions(maximumConcurrency: 3))
      .enumerate()
    for contents in try await [first, second, other] {
      #expect(contents.assets == serial.assets)
      #expect(contents.groups == serial.groups)
      #expect(contents.folderProblems == serial.folderProblems)
      #expect(contents.otherFiles == serial.otherFiles)
    }
  }
}
