import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// How many `pread` calls, and how many bytes, reading one file's metadata costs: the
/// first read, then exact follow-ups for what lies past it, never the image data.
@Suite struct ReadCountTests {
  /// What reading one file cost, and what it found.
  struct Outcome {
    var metadata: MediaMetadata
    var readCalls: Int
    var bytesRead: Int
  }

  /// Writes `content` to a file, reads its metadata as the engine does (one open, the
  /// first read, the reader for `format`) and counts that file's reads; the root's tally
  /// must agree. With `verifiesFileEnds` (``LibraryOptions/verifiesFileEnds``), the
  /// metadata must equal what the reader finds in the same bytes in memory.
  static func read(
    _ content: [UInt8], as name: String, format: MediaFormat, verifiesFileEnds: Bool = true
  ) throws -> Outcome {
    let folder = try TemporaryFolder()
    try folder.write(name, content)
    let root = try LibraryRoot(path: folder.path, verifiesFileEnds: verifiesFileEnds)
    var calls = 0
    var bytes = 0
    let metadata = try LibraryFile.withOpened(root: root, path: LibraryPath(name)) {
      file throws(AssetProblem) in
      let metadata = AssetReader.readMetadata(
        from: PrefetchedByteSource(file, verifiesEnds: verifiesFileEnds), format: format)
      calls = file.readCalls
      bytes = file.bytesRead
      return metadata
    }
    #expect(root.readTally.readCalls == calls)
    #expect(root.readTally.bytesRead == bytes)
    // The same bytes read from memory give the same metadata: only the reads changed.
    if verifiesFileEnds {
      #expect(
        metadata == MetadataReaderTable.read(from: ArrayByteSource(content), format: format))
    }
    return Outcome(metadata: metadata, readCalls: calls, bytesRead: bytes)
  }

  static let firstRead = PrefetchedByteSource<LibraryFile>.window
  static let followUp = PrefetchedByteSource<LibraryFile>.followUpLength

  static func bigEndian16(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
  }

  static func bigEndian32(_ value: Int) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  /// The sample JPEG's segments: JFIF `APP0` at 2, the EXIF `APP1` at 20 (450 bytes),
  /// then the tables, the frame and `SOS`, the image data and `FF D9`.
  static func sampleJPEG() throws -> (bytes: [UInt8], app1: Range<Int>) {
    let jpeg = try TestMovies.fixture("IMG_0001.JPG")
    let app1 = 20..<(20 + 2 + 450)
    try #require(jpeg[app1].starts(with: [0xFF, 0xE1, 0x01, 0xC2] + Array("Exif".utf8)))
    try #require(jpeg.suffix(2).elementsEqual([0xFF, 0xD9]))
    return (jpeg, app1)
  }

  @Test func aJPEGWhoseEXIFRunsPastTheFirstReadGetsTheRestOfItInOneRead() throws {
    let (sample, app1) = try Self.sampleJPEG()
    // The EXIF payload padded to 20,000 bytes (the TIFF structure ignores what follows
    // it), and 200,000 bytes of image data.
    let payload =
      Array(sample[(app1.lowerBound + 4)..<app1.upperBound])
      + [UInt8](
        repeating: 0, count: 20_000 - (app1.count - 4))
    var jpeg = Array(sample[..<app1.lowerBound]) + [0xFF, 0xE1] + Self.bigEndian16(20_002)
    jpeg += payload
    let app1End = jpeg.count
    jpeg += sample[app1.upperBound..<(sample.count - 2)]
    jpeg += [UInt8](repeating: 0, count: 200_000) + [0xFF, 0xD9]

    let outcome = try Self.read(jpeg, as: "big-app1.jpg", format: .jpeg)
    #expect(outcome.metadata.problems.isEmpty)
    #expect(outcome.metadata.dateTimeOriginal != nil)
    // The first read; the rest of the APP1 in one; the segments after it up to SOS (one
    // follow-up); the last 512 bytes for the end-of-image marker.
    #expect(outcome.readCalls == 4)
    #expect(
      outcome.bytesRead == app1End + Self.followUp + FileTail.firstLookLength)
    #expect(outcome.bytesRead < jpeg.count / 8)
    // Without the end checks asked for, the end is not read.
    let unverified = try Self.read(
      jpeg, as: "big-app1.jpg", format: .jpeg, verifiesFileEnds: false)
    #expect(unverified.metadata == outcome.metadata)
    #expect(unverified.readCalls == 3)
    #expect(unverified.bytesRead == app1End + Self.followUp)
  }

  @Test func aJPEGWhoseMetadataFitsTheFirstReadCostsItAloneAndItsLastBytesWhenVerified()
    throws
  {
    let (sample, _) = try Self.sampleJPEG()
    let jpeg =
      Array(sample.dropLast(2)) + [UInt8](repeating: 0, count: 100_000) + [0xFF, 0xD9]
    let outcome = try Self.read(jpeg, as: "small-app1.jpg", format: .jpeg)
    #expect(outcome.metadata.problems.isEmpty)
    #expect(outcome.readCalls == 2)
    #expect(outcome.bytesRead == Self.firstRead + FileTail.firstLookLength)
    let unverified = try Self.read(
      jpeg, as: "small-app1.jpg", format: .jpeg, verifiesFileEnds: false)
    #expect(unverified.metadata == outcome.metadata)
    #expect(unverified.readCalls == 1)
    #expect(unverified.bytesRead == Self.firstRead)
  }

  /// EXIF and an XMP packet of a few KB before the frame (as exiftool writes them): the
  /// walk up to `SOS` is held by the first read.
  @Test func aJPEGWithASmallXMPPacketAfterItsEXIFCostsTheFirstReadAlone() throws {
    let (sample, app1) = try Self.sampleJPEG()
    let packet =
      Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>"#.utf8)
      + [UInt8](repeating: 0x20, count: 3_000)
    let segment = JPEGStructure.xmpIdentifier + packet
    var jpeg = Array(sample[..<app1.upperBound])
    jpeg += [0xFF, 0xE1] + Self.bigEndian16(segment.count + 2) + segment
    let sosEnd = jpeg.count + 2_000
    try #require(sosEnd < Self.firstRead)
    jpeg += sample[app1.upperBound..<(sample.count - 2)]
    jpeg += [UInt8](repeating: 0, count: 100_000) + [0xFF, 0xD9]
    let outcome = try Self.read(
      jpeg, as: "exiftool.jpg", format: .jpeg, verifiesFileEnds: false)
    #expect(outcome.metadata.problems.isEmpty)
    #expect(outcome.metadata.dateTimeOriginal != nil)
    #expect(outcome.readCalls == 1)
    #expect(outcome.bytesRead == Self.firstRead)
  }

  @Test func aJPEGWithoutItsEndMarkerIsStillCalledTruncatedAfterTheWiderLook() throws {
    let (sample, _) = try Self.sampleJPEG()
    let jpeg = Array(sample.dropLast(2)) + [UInt8](repeating: 0x55, count: 100_000)
    let outcome = try Self.read(jpeg, as: "cut.jpg", format: .jpeg)
    #expect(outcome.metadata.problems.map(\.code) == [.truncated])
    // The last 512 bytes, then the rest of the last 64 KiB, added to them.
    #expect(outcome.readCalls == 3)
    #expect(outcome.bytesRead == Self.firstRead + JPEGStructure.endCheckLength)
    // Not asked for: the cut is not seen, and nothing after the first read is read.
    let unverified = try Self.read(jpeg, as: "cut.jpg", format: .jpeg, verifiesFileEnds: false)
    #expect(unverified.metadata.problems.isEmpty)
    #expect(unverified.readCalls == 1)
    #expect(unverified.bytesRead == Self.firstRead)
  }

  /// A PNG chunk: length, type, data, CRC.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let kind = Array(type.utf8)
    return Self.bigEndian32(data.count) + kind + data
      + Self.bigEndian32(Int(CRC32.checksum(kind, data)))
  }

  @Test func aPNGWithEXIFAfterItsImageDataSkipsTheImageDataChunkByChunk() throws {
    let (sample, app1) = try Self.sampleJPEG()
    let screenshot = try TestMovies.fixture("Screenshots/screenshot.png")
    let tiff = Array(sample[(app1.lowerBound + 10)..<app1.upperBound])
    let imageData = [UInt8](repeating: 0x78, count: 50_000)
    var png = Array(screenshot[..<33])  // signature and IHDR
    png += Self.chunk("IDAT", imageData) + Self.chunk("IDAT", imageData)
    let exifChunk = png.count
    png += Self.chunk("eXIf", tiff) + Self.chunk("IEND", [])

    let outcome = try Self.read(png, as: "late-exif.png", format: .png)
    #expect(outcome.metadata.dateTimeOriginal != nil)
    // The first read (signature, IHDR, the first IDAT's header); the second IDAT's
    // header alone; the eXIf chunk and IEND, with the last 512 bytes the end check
    // looks at, in one.
    #expect(png.count - exifChunk < FileTail.firstLookLength)
    #expect(outcome.readCalls == 3)
    #expect(outcome.bytesRead == Self.firstRead + 8 + FileTail.firstLookLength)
  }

  /// The sample movie: `ftyp` (32 bytes), `free` (8), `mdat` (1,477), `moov` (887).
  static func movie(mediaData: Int, moovPadding: Int) throws -> (bytes: [UInt8], moov: Int) {
    let clip = try TestMovies.fixture("Videos/clip.mp4")
    let moov = Array(clip[1517...])
    try #require(moov.count == 887 && moov[4..<8].elementsEqual("moov".utf8))
    var bytes = Array(clip[..<40]) + Self.bigEndian32(8 + mediaData) + Array("mdat".utf8)
    bytes += [UInt8](repeating: 0, count: mediaData)
    let moovStart = bytes.count
    if moovPadding > 0 {
      // A `free` box inside `moov` makes it longer; the reader skips it.
      bytes += Self.bigEndian32(moov.count + moovPadding) + moov[4...]
      bytes += Self.bigEndian32(moovPadding) + Array("free".utf8)
      bytes += [UInt8](repeating: 0, count: moovPadding - 8)
    } else {
      bytes += moov
    }
    return (bytes, moovStart)
  }

  @Test func anMP4WithASmallMoovAtTheEndReadsItWithTheRestOfTheFileInOneRead() throws {
    let (mp4, moov) = try Self.movie(mediaData: 300_000, moovPadding: 0)
    let outcome = try Self.read(mp4, as: "small-moov.mp4", format: .mp4)
    #expect(outcome.metadata.duration != nil)
    #expect(outcome.readCalls == 2)
    #expect(outcome.bytesRead == Self.firstRead + (mp4.count - moov))
  }

  @Test func anMP4WithALargeMoovAtTheEndReadsItsHeaderThenAllOfItInOneRead() throws {
    let (mp4, moov) = try Self.movie(mediaData: 300_000, moovPadding: 20_000)
    let outcome = try Self.read(mp4, as: "large-moov.mp4", format: .mp4)
    #expect(outcome.metadata.duration != nil)
    // The first read; the moov's header (16 bytes, what a box header may need); the rest
    // of the moov in one read, its children then walked from memory.
    #expect(outcome.readCalls == 3)
    #expect(outcome.bytesRead == Self.firstRead + (mp4.count - moov))
  }
}

/// The readers that join the workers once the reads come from the disk (``ColdReaders``),
/// driven through ``ParallelReader``: every job read once, in order, and by more threads
/// only when the disk is cold.
@Suite struct ColdReadersTests {
  /// `count` jobs for files that need not exist: the readers here only record who read.
  static func jobs(count: Int) -> [ReadJob] {
    (0..<count).map { index in
      let file = ScannedFile(
        path: LibraryPath("IMG_\(index).jpg"), fileSize: 30_002,
        modificationDate: Date(timeIntervalSince1970: 0), format: .jpeg, type: .photo,
        problem: nil)
      return ReadJob(file: file, group: ScannedGroup.Key(kind: .savedPhotos, path: LibraryPath("")))
    }
  }

  /// Reads `jobs` with one worker and `readers` cold readers; each read waits `pause`
  /// microseconds, as a read from a disk would. Returns the results and how many threads
  /// read.
  static func read(
    _ jobs: [ReadJob], root: LibraryRoot, readers: Int, pause: UInt32,
    cancellation: CancellationFlag = CancellationFlag(),
    budget: ColdReaders.Budget? = nil, threads: LockedThreads = LockedThreads()
  ) async -> (results: [String?], threads: Int) {
    let results = await ParallelReader.run(
      jobs: jobs, width: 1, cancellation: cancellation, throttle: nil,
      coldReaders: ColdReaders(
        root: root, readers: readers, budget: budget ?? ColdReaders.Budget(threads: readers))
    ) {
      let reader = threads.newReader()
      return { job in
        threads.begin()
        CurrentProcess.sleep(microseconds: pause)
        threads.read(by: reader)
        return job.file.path.description
      }
    }
    return (results, threads.readers)
  }

  /// The readers that read at least one job, and the most that read at once.
  final class LockedThreads: Sendable {
    private let state = SanitizerVisibleMutex(
      (made: 0, reading: Set<Int>(), now: 0, most: 0))
    func newReader() -> Int {
      state.withLock {
        $0.made += 1; return $0.made
      }
    }
    func begin() {
      state.withLock {
        $0.now += 1
        $0.most = max($0.most, $0.now)
      }
    }
    func read(by reader: Int) {
      state.withLock {
        $0.now -= 1
        $0.reading.insert(reader)
      }
    }
    var readers: Int { state.withLock { $0.reading.count } }
    var mostAtOnce: Int { state.withLock { $0.most } }
  }

  @Test func onAColdDiskMoreReadersJoinAndEveryJobIsReadOnceInOrder() async throws {
    let folder = try TemporaryFolder()
    let root = try LibraryRoot(path: folder.path)
    // Eight slow reads of eight: the disk is cold.
    root.readTally.add(calls: 8, bytes: 0, slowCalls: 8)
    #expect(root.readTally.isCold)
    let jobs = Self.jobs(count: 200)
    let outcome = await Self.read(jobs, root: root, readers: 4, pause: 1000)
    #expect(outcome.results == jobs.map { $0.file.path.description })
    // The worker and up to four readers: they start within a few milliseconds, but on a
    // loaded machine one may start after the last job is taken.
    #expect(outcome.threads > 2)
    #expect(outcome.threads <= 5)
  }

  @Test func withTheReadsFromThePageCacheOnlyTheWorkersRead() async throws {
    let folder = try TemporaryFolder()
    let root = try LibraryRoot(path: folder.path)
    root.readTally.add(calls: 100, bytes: 100_000, slowCalls: 0)
    let jobs = Self.jobs(count: 50)
    let outcome = await Self.read(jobs, root: root, readers: 4, pause: 1000)
    #expect(outcome.results == jobs.map { $0.file.path.description })
    #expect(outcome.threads == 1)
    #expect(ColdReaders(root: root, readers: 0) == nil)
  }

  /// Two runs at once, each asking for four readers from one budget of four: together
  /// they never read on more than their two workers and four readers at once, and the budget is
  /// whole again when they end.
  @Test func runsAtOnceShareOneBudgetOfReaders() async throws {
    let folder = try TemporaryFolder()
    let root = try LibraryRoot(path: folder.path)
    root.readTally.add(calls: 8, bytes: 0, slowCalls: 8)
    let budget = ColdReaders.Budget(threads: 4)
    let threads = LockedThreads()
    let jobs = Self.jobs(count: 200)
    async let first = Self.read(
      jobs, root: root, readers: 4, pause: 1000, budget: budget, threads: threads)
    async let second = Self.read(
      jobs, root: root, readers: 4, pause: 1000, budget: budget, threads: threads)
    let outcomes = await [first, second]
    for outcome in outcomes {
      #expect(outcome.results == jobs.map { $0.file.path.description })
    }
    // Each run's worker, and four readers between them (without the budget, eight); a
    // run may take the readers the other gave back when it ended.
    #expect(threads.mostAtOnce <= 6)
    #expect(threads.readers > 2)
    #expect(budget.available == 4)
  }

  @Test func aBudgetGivesWhatItHasAndNoMore() {
    let budget = ColdReaders.Budget(threads: 5)
    #expect(budget.take(upTo: 3) == 3)
    #expect(budget.take(upTo: 3) == 2)
    #expect(budget.take(upTo: 1) == 0)
    budget.giveBack()
    #expect(budget.take(upTo: 4) == 1)
    #expect(ColdReaders.Budget(threads: -2).take(upTo: 1) == 0)
  }

  @Test func aCancelledRunEndsItsReadersToo() async throws {
    let folder = try TemporaryFolder()
    let root = try LibraryRoot(path: folder.path)
    root.readTally.add(calls: 8, bytes: 0, slowCalls: 8)
    let cancellation = CancellationFlag()
    cancellation.set()
    let outcome = await Self.read(
      Self.jobs(count: 50), root: root, readers: 4, pause: 1000, cancellation: cancellation)
    #expect(outcome.results.allSatisfy { $0 == nil })
    #expect(outcome.threads == 0)
  }
}
