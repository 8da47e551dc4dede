import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The QuickTime reader's bounds (docs/Robustness.md), on hand-built bytes.
@Suite struct QuickTimeRobustnessTests {
  typealias B = BoxBuilder

  static let now = Date(timeIntervalSince1970: 1_790_000_000)
  let header = B.mvhd(creation: B.june2021)

  func read(_ bytes: [UInt8]) -> MediaMetadata {
    QuickTimeMetadataReader.read(from: ArrayByteSource(bytes), now: Self.now)
  }

  // B1
  @Test func aSizeZeroMovieAtTheEndIsRead() {
    let metadata = read(B.ftyp() + B.rawBox(size: 0, "moov", header))
    #expect(metadata.movieHeaderCreationDate != nil)
    #expect(metadata.problems == [])
  }

  @Test func aSizeZeroMediaDataBeforeTheMovieHidesIt() {
    let metadata = read(B.ftyp() + B.rawBox(size: 0, "mdat", [1, 2, 3]) + B.box("moov", header))
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
  }

  @Test func aNestedSizeZeroBoxEndsItsParent() {
    let track = B.rawBox(
      size: 0, "trak", Array(B.trak(handler: "vide", width: 8, height: 6).dropFirst(8)))
    let metadata = read(B.box("moov", header + track) + B.box("free", []))
    #expect(metadata.pixelWidth == 8)
    #expect(metadata.problems == [])
  }

  // B2
  @Test(arguments: [UInt64(0), 8, 15])
  func aLargesizeBelowSixteenIsMalformed(largesize: UInt64) {
    let metadata = read(
      B.ftyp() + B.largeBox("mdat", largesize: largesize, [UInt8](repeating: 0, count: 32))
        + B.box("moov", header))
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(metadata.problems.first?.message.contains("less than its 16-byte header") == true)
  }

  @Test(arguments: [UInt64(1 << 40), UInt64(Int64.max), UInt64.max])
  func aLargesizePastTheFileIsTruncated(largesize: UInt64) {
    let metadata = read(
      B.ftyp() + B.largeBox("mdat", largesize: largesize, [1, 2, 3]) + B.box("moov", header))
    // The cut `mdat`, then no `moov` (it lies beyond the cut).
    #expect(metadata.problems.map(\.code) == [.truncated, .malformed])
    #expect(metadata.problems.first?.message.contains("declares \(largesize) bytes") == true)
  }

  @Test func aLargesizeMovieIsRead() {
    let movie = B.largeBox("moov", largesize: UInt64(16 + header.count), header)
    let metadata = read(B.ftyp() + movie)
    #expect(metadata.movieHeaderCreationDate != nil)
    #expect(metadata.problems == [])
  }

  // B3
  @Test(arguments: UInt32(2)...7)
  func aSizeSmallerThanTheHeaderIsMalformed(size: UInt32) {
    let metadata = read(
      B.ftyp() + B.rawBox(size: size, "free", [0, 0, 0, 0]) + B.box("moov", header))
    #expect(metadata.problems.count == 2)
    #expect(metadata.problems.allSatisfy { $0.code == .malformed })
    let nested = read(B.box("moov", header + B.rawBox(size: size, "trak")))
    #expect(nested.movieHeaderCreationDate != nil)
    #expect(nested.problems.map(\.code) == [.malformed])
  }

  // B4
  @Test func aMovieLongerThanTheFileIsReadAsTruncated() {
    var movie = B.box("moov", header + B.trak(handler: "vide", width: 8, height: 6))
    movie.replaceSubrange(0..<4, with: B.be32(100_000))
    let metadata = read(B.ftyp() + movie)
    #expect(metadata.movieHeaderCreationDate != nil)
    #expect(metadata.pixelWidth == 8)
    #expect(
      metadata.problems.map(\.message) == [
        "Box 'moov' at offset 20 declares 100000 bytes but only \(movie.count) remain in its parent; "
          + "it was read as truncated."
      ])
  }

  @Test func aChildLongerThanItsParentIsClampedToIt() {
    var track = B.trak(handler: "vide", width: 8, height: 6)
    track.replaceSubrange(8..<12, with: B.be32(5000))  // tkhd claims 5000 bytes
    let metadata = read(
      B.box("moov", header + track) + B.box("free", [UInt8](repeating: 0, count: 6000)))
    #expect(metadata.pixelWidth == nil)
    #expect(metadata.problems.count == 1)
    #expect(metadata.problems.first?.message.contains("Box 'tkhd'") == true)
  }

  // B5
  @Test(arguments: ["moov", "trak", "udta", "meta", "mdia"])
  func aNestingBombEndsQuickly(type: String) {
    var bytes = header
    for _ in 0..<10_000 { bytes = B.box(type, bytes) }
    let clock = ContinuousClock()
    let elapsed = clock.measure { _ = read(B.box("moov", B.box("udta", bytes) + bytes)) }
    #expect(elapsed < .seconds(2))
  }

  // B6: tiny `free` boxes are skipped one header each up to the box budget; a million
  // of them pass it, and the walk ends there with a problem (bounded time), never reaching
  // the `moov` behind them.
  @Test(arguments: [200_000, 1_000_000])
  func tinyFreeBoxesAreSkippedUpToTheBudget(count: Int) {
    let free = B.box("free", [])
    var bytes = B.ftyp()
    bytes.reserveCapacity(8 * count + 100 + header.count)
    for _ in 0..<count { bytes += free }
    bytes += B.box("moov", header)
    let clock = ContinuousClock()
    var metadata = MediaMetadata()
    let elapsed = clock.measure { metadata = read(bytes) }
    let overBudget = count >= QuickTimeMetadataReader.maximumBoxCount
    #expect((metadata.movieHeaderCreationDate != nil) == !overBudget)
    #expect(
      metadata.problems.map(\.message)
        == (overBudget
          ? [
            "The file has more than \(QuickTimeMetadataReader.maximumBoxCount) boxes; the rest "
              + "were not read."
          ] : []))
    #expect(metadata.problems.allSatisfy { $0.code == .unsupported })
    #expect(elapsed < .seconds(10))
  }

  @Test func aHugeMediaDataBoxIsSkippedWithoutReadingIt() {
    let size: UInt64 = 5_000_000_000
    let ftyp = B.ftyp()
    let movieOffset = ftyp.count + Int(size)
    let movie = B.box("moov", header)
    let source = SparseSource(
      count: movieOffset + movie.count,
      runs: [(0, ftyp), (ftyp.count, B.largeBox("mdat", largesize: size)), (movieOffset, movie)])
    let metadata = QuickTimeMetadataReader.read(from: source, now: Self.now)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-06-01T10:00:00Z")
    #expect(metadata.problems == [])
    #expect(source.bytesRead < 1024)
    #expect(source.reads < 10)
  }

  @Test func theBoxBudgetStopsAnEndlessWalk() {
    // A 4 GB file of 8-byte `free` boxes would be 500 million steps; the budget
    // (``QuickTimeMetadataReader/maximumBoxCount`` by default) stops the walk.
    let source = PatternSource(count: 4 << 30, pattern: B.box("free", []))
    let metadata = QuickTimeMetadataReader.read(from: source, now: Self.now, boxLimit: 1000)
    #expect(
      metadata.problems.map(\.message) == [
        // Not also "no 'moov' box": past the budget, whether there is one is unknown.
        "The file has more than 1000 boxes; the rest were not read."
      ])
  }

  // B11
  @Test(arguments: ["tiny.mov", "tiny.mp4"])
  func everyPrefixOfARealMovieIsSafe(name: String) throws {
    try checkEveryPrefix(TestMovies.bytes(name))
  }

  @Test(arguments: ["DCIM/100APPLE/IMG_0102.MOV", "Videos/clip.mp4"])
  func everyPrefixOfASampleLibraryMovieIsSafe(path: String) throws {
    try checkEveryPrefix(TestMovies.fixture(path))
  }

  /// Reads every strict prefix: each must report a problem — it cuts a box or drops the
  /// movie — except a prefix that ends exactly after a top-level box following the movie,
  /// which is a well-formed file with the same metadata as the whole.
  func checkEveryPrefix(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    let whole = QuickTimeMetadataReader.read(from: ArrayByteSource(bytes), now: Self.now)
    #expect(whole.problems == [], sourceLocation: sourceLocation)
    var boundariesAfterMovie: Set<Int> = []
    var boxes = BoxIterator(topLevelOf: BoxReader(source: ArrayByteSource(bytes)))
    var seenMovie = false
    while let box = try? boxes.next() {
      seenMovie = seenMovie || box.type == .movie
      if seenMovie { boundariesAfterMovie.insert(box.end) }
    }
    for length in 0..<bytes.count {
      let metadata = QuickTimeMetadataReader.read(
        from: PrefixSource(base: bytes, count: length), now: Self.now)
      if boundariesAfterMovie.contains(length) {
        #expect(metadata == whole, "prefix \(length)", sourceLocation: sourceLocation)
      } else {
        #expect(!metadata.problems.isEmpty, "prefix \(length)", sourceLocation: sourceLocation)
      }
    }
  }

  @Test(arguments: ["tiny.mov", "tiny.mp4"])
  func corruptedBytesNeverCrash(name: String) throws {
    let original = try TestMovies.bytes(name)
    var random = SplitMix64(seed: 0x5EED)
    var reported = 0
    for round in 0..<3000 {
      var bytes = original
      for _ in 0..<Int(random.next() % 4 + 1) {
        let index = Int(random.next() % UInt64(bytes.count))
        bytes[index] = UInt8(truncatingIfNeeded: random.next())
      }
      if expectReaderInvariants(read(bytes), "\(name), round \(round)") { reported += 1 }
    }
    // Broken boxes are reported, not passed over in silence.
    #expect(reported > 0)
  }
}

/// A deterministic random number generator for mutation tests.
struct SplitMix64 {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A byte source repeating one pattern, of any length, without storing it.
struct PatternSource: ByteSource {
  let count: Int
  let pattern: [UInt8]

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    return (offset..<(offset + min(length, count - offset))).map { pattern[$0 % pattern.count] }
  }
}
