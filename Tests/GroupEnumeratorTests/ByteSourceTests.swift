import Testing

@testable import GroupEnumerator

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
    for offset in stride(from: 0, to: 60_000, by: 1_000) {
      _ = try prefetched.bytes(at: offset, length: 4)
    }
    #expect(source.reads == 1)
    _ = try prefetched.bytes(at: 65_000, length: 1_000)
    #expect(source.reads == 2)
  }

  @Test func aFailedFirstReadLeavesFailuresToTheSource() {
    let source = CountingSource(Self.pattern(1_000), failsAt: 10)
    let prefetched = PrefetchedByteSource(source)
    #expect(throws: AssetProblem.self) { try prefetched.bytes(at: 8, length: 4) }
    #expect((try? prefetched.bytes(at: 20, length: 4)) == Array(Self.pattern(1_000)[20..<24]))
  }
}
