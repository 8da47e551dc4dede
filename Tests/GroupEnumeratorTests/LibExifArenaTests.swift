import Dispatch
import GroupEnumerator
import Synchronization
import Testing

@testable import GroupEnumeratorCore

/// LibExifReader loads every EXIF block into a per-thread arena (Sources/CLibExifArena):
/// blocks that overflow it, blocks read one after another on one thread, and blocks read
/// on many threads at once must all read as if each had memory of its own.
@Suite struct LibExifArenaTests {
  /// An EXIF block whose IFD0 holds `padding` extra ASCII entries (unknown tags, each
  /// with an out-of-line value) besides DateTime, and whose EXIF IFD holds
  /// DateTimeOriginal.
  private func payload(date: String, padding: Int) -> [UInt8] {
    var builder = EXIFTestBuilder()
    builder.ifd0 =
      [(0x0132, .ascii(date))]
      + (0..<padding).map { (UInt16(0xA500 + $0 % 0x0F00), .ascii("padding \($0 % 1000)")) }
    builder.exif = [(0x9003, .ascii(date))]
    return builder.app1Payload()
  }

  @Test func aBlockThatOverflowsTheArenaIsReadWhole() throws {
    // 2,400 entries: libexif allocates far more than the 512 KiB arena for them (each
    // entry, its value, and the entry list regrown once per entry).
    let big = payload(date: "2019:05:06 07:08:09", padding: 2_400)
    #expect(big.count <= 65_533)
    for _ in 0..<3 {
      let table = LibExifReader.read(payload: big)
      #expect(table.entryCounts[.ifd0] == 2_401)
      #expect(table[.ifd0, 0x0132] == .ascii(Array("2019:05:06 07:08:09\0".utf8)))
      #expect(table[.exif, 0x9003] == .ascii(Array("2019:05:06 07:08:09\0".utf8)))
      // The next block on this thread starts from an empty arena.
      let small = LibExifReader.read(payload: payload(date: "2001:02:03 04:05:06", padding: 0))
      #expect(small.entryCounts[.ifd0] == 1)
      #expect(small[.exif, 0x9003] == .ascii(Array("2001:02:03 04:05:06\0".utf8)))
    }
  }

  @Test func blocksReadOnManyThreadsAtOnceKeepTheirOwnValues() {
    let dates = (1...8).map { "20\(10 + $0):0\($0):1\($0) 0\($0):1\($0):2\($0)" }
    let payloads = dates.enumerated().map { payload(date: $1, padding: $0 * 150) }
    let mismatches = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 400) { round in
      let index = round % payloads.count
      let table = LibExifReader.read(payload: payloads[index])
      let expected = TIFFValue.ascii(Array((dates[index] + "\0").utf8))
      if table[.exif, 0x9003] != expected || table[.ifd0, 0x0132] != expected
        || table.entryCounts[.ifd0] != 1 + index * 150
      {
        mismatches.add(1, ordering: .relaxed)
      }
    }
    #expect(mismatches.load(ordering: .relaxed) == 0)
  }
}
