import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct ByteSourceTests {
  /// Counts the reads that reach the underlying source.
  final class CountingSource: ByteSource {
    let storage: ArrayByteSource
    var reads = 0
    var failsAt: Int?

    init(_ bytes: [UInt8], failsAt: Int? = nil) {
      storage = ArrayByteSource(bytes)
      self.failsAt = failsAt
    }

    var count: Int { storage.count }

    func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
      reads += 1
      if let failsAt, offset <= failsAt, failsAt < offset + length {
        throw AssetProblem(.unreadable, "fails at \(failsAt)")
      }
      return try storage.bytes(at: offset, length: length)
    }
  }

  static func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
  }

  @Test(arguments: [0, 1, 100, 65_536, 70_000])
  func prefetchedReadsEqualTheSourcesReads(size: Int) throws {
    let bytes = Self.pattern(size)
    let plain = ArrayByteSource(bytes)
    let prefetched = PrefetchedByteSource(CountingSource(bytes))
    #expect(prefetched.count == size)
    let window = PrefetchedByteSource<CountingSource>.window
    for offset in [-1, 0, 1, 2, 4_000, window - 3, window - 1, window, window + 1, size - 1, size] {
      for length in [0, 1, 2, 4, 6, 1_000, 65_533, 100_000] {
        #expect(
          try prefetched.bytes(at: offset, length: length)
            == plain.bytes(at: offset, length: length),
          "offset \(offset), length \(length)")
      }
    }
  }

  @Test func readsInsideTheWindowCostOneRead() throws {
    let source = CountingSource(Self.pattern(70_000))
    let prefetched = PrefetchedByteSource(source)
    let window = PrefetchedByteSource<CountingSource>.window
    for offset in stride(from: 0, to: window - 4, by: 100) {
      _ = try prefetched.bytes(at: offset, length: 4)
    }
    #expect(source.reads == 1)
    _ = try prefetched.bytes(at: window + 1_000, length: 1_000)
    #expect(source.reads == 2)
  }

  @Test func smallStepsPastTheWindowCostOneReadPerFollowUp() throws {
    // A marker walk past the first read: each read near the end of what is held extends
    // it by at least `followUpLength` bytes.
    let source = CountingSource(Self.pattern(70_000))
    let prefetched = PrefetchedByteSource(source)
    let window = PrefetchedByteSource<CountingSource>.window
    let followUp = PrefetchedByteSource<CountingSource>.followUpLength
    for offset in stride(from: 0, to: window + 4 * followUp, by: 500) {
      #expect(
        try prefetched.bytes(at: offset, length: 4)
          == Array(Self.pattern(70_000)[offset..<(offset + 4)]))
    }
    #expect(source.reads == 1 + 4)
  }

  @Test func aFarReadTakesWhatItAsksAndAReadJustAfterExtendsIt() throws {
    let source = CountingSource(Self.pattern(200_000))
    let prefetched = PrefetchedByteSource(source)
    _ = try prefetched.bytes(at: 100_000, length: 16)
    #expect(source.reads == 2)
    // The box's content after its header: one read, and what follows is held too.
    _ = try prefetched.bytes(at: 100_008, length: 2_000)
    _ = try prefetched.bytes(at: 102_008, length: 100)
    #expect(source.reads == 3)
    // The head is still held.
    _ = try prefetched.bytes(at: 10, length: 100)
    #expect(source.reads == 3)
  }

  @Test func aPrefetchedRangeIsFetchedInOneRead() throws {
    let source = CountingSource(Self.pattern(200_000))
    let prefetched = PrefetchedByteSource(source)
    prefetched.prefetch(150_000..<190_000)
    #expect(source.reads == 2)
    for offset in stride(from: 150_000, to: 190_000, by: 999) {
      _ = try prefetched.bytes(at: offset, length: 8)
    }
    #expect(source.reads == 2)
  }

  /// A small deterministic generator (SplitMix64), so that a failure names its seed.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func anyMixOfReadsAndPrefetchesGivesTheSourcesBytes(seed: UInt64) throws {
    // Walks like the readers': small steps, far jumps, reads near the end and back again.
    var random = SplitMix(state: seed)
    let size = [5_000, 16_384, 70_000, 300_000, 700_000][Int(seed) % 5]
    let bytes = Self.pattern(size)
    let plain = ArrayByteSource(bytes)
    let prefetched = PrefetchedByteSource(CountingSource(bytes))
    var position = 0
    for step in 0..<400 {
      switch Int.random(in: 0..<6, using: &random) {
      case 0: position += Int.random(in: 0..<600, using: &random)
      case 1: position = Int.random(in: 0..<(size + 10), using: &random)
      case 2: position = max(0, size - Int.random(in: 0..<5_000, using: &random))
      case 3: position = max(0, position - Int.random(in: 0..<5_000, using: &random))
      case 4:
        let start = Int.random(in: -10..<(size + 10), using: &random)
        prefetched.prefetch(start..<(start + Int.random(in: 0..<300_000, using: &random)))
      default: position = Int.random(in: 0..<min(size, 20_000), using: &random)
      }
      let length = [1, 4, 8, 16, 29, 512, 4_096, 65_533, 300_000][
        Int.random(in: 0..<9, using: &random)]
      #expect(
        try prefetched.bytes(at: position, length: length)
          == plain.bytes(at: position, length: length),
        "seed \(seed), step \(step): offset \(position), length \(length)")
    }
  }

  @Test func aSliceForwardsAPrefetchToItsBase() throws {
    // The video inside a motion photo: its `moov` prefetched through the slice.
    let bytes = Self.pattern(200_000)
    let source = CountingSource(bytes)
    let slice = SliceByteSource(PrefetchedByteSource(source), range: 100_000..<200_000)
    slice.prefetch(50_000..<90_000)
    #expect(source.reads == 2)
    #expect(try slice.bytes(at: 60_000, length: 8) == Array(bytes[160_000..<160_008]))
    #expect(try slice.bytes(at: 89_992, length: 8) == Array(bytes[189_992..<190_000]))
    #expect(source.reads == 2)
  }

  @Test func aReadLongerThanWhatIsKeptGoesThroughWhole() throws {
    let bytes = Self.pattern(600_000)
    let source = CountingSource(bytes)
    let prefetched = PrefetchedByteSource(source)
    let long = PrefetchedByteSource<CountingSource>.maximumHeld + 1
    #expect(try prefetched.bytes(at: 100, length: long) == Array(bytes[100..<(100 + long)]))
    #expect(source.reads == 2)
  }

  @Test func aFailedFirstReadLeavesFailuresToTheSource() {
    let source = CountingSource(Self.pattern(1_000), failsAt: 10)
    let prefetched = PrefetchedByteSource(source)
    #expect(throws: AssetProblem.self) { try prefetched.bytes(at: 8, length: 4) }
    #expect((try? prefetched.bytes(at: 20, length: 4)) == Array(Self.pattern(1_000)[20..<24]))
  }
}
