import CDeferredLibraries
import CZlib
import Testing

/// The libraries `CDeferredLibraries` opens on first use are open in the test process, and
/// the checksums it computes itself when zlib is missing are zlib's.
@Suite struct DeferredLibrariesTests {
  @Test func everyLibraryOpens() {
    #expect(CDeferredLibraries_libexif() == nil)
    #expect(CDeferredLibraries_sqlite() == nil)
    #expect(CDeferredLibraries_zlib() == nil)
  }

  /// Inputs of every length up to 70 (the bit-by-bit loops' edges), then a large one, each
  /// continued from a running value as PNG's chunk CRCs are (type, then data).
  private static let inputs: [[UInt8]] = {
    var generator = SplitMix64(seed: 0x5EED)
    func byte() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
    var inputs = (0...70).map { length in (0..<length).map { _ in byte() } }
    inputs.append((0..<200_000).map { _ in byte() })
    inputs.append([UInt8](repeating: 0xFF, count: 6_000))
    return inputs
  }()

  /// Expects `ours` and `zlibs` to agree on every input, from every start in `starts`.
  private static func agree(
    starts: [UInt], _ ours: (UInt, UnsafeBufferPointer<UInt8>) -> UInt,
    _ zlibs: (uLong, UnsafeBufferPointer<UInt8>) -> uLong
  ) {
    for input in inputs {
      for start in starts {
        let mine = input.withUnsafeBufferPointer { ours(start, $0) }
        let theirs = input.withUnsafeBufferPointer { zlibs(uLong(start), $0) }
        #expect(mine == theirs, "length \(input.count), start \(start)")
      }
    }
  }

  @Test func theCRC32WithoutZlibIsZlibs() {
    Self.agree(
      starts: [0, 0xFFFF_FFFF, 0x1234_5678],
      { CDeferredLibraries_crc32($0, $1.baseAddress, $1.count) },
      { crc32($0, $1.baseAddress, uInt($1.count)) })
    // The PNG specification's own example: the CRC of "IEND".
    let iend = Array("IEND".utf8).withUnsafeBufferPointer {
      CDeferredLibraries_crc32(0, $0.baseAddress, $0.count)
    }
    #expect(iend == 0xAE42_6082)
    #expect(CDeferredLibraries_crc32(7, nil, 0) == 0)
  }

  @Test func theAdler32WithoutZlibIsZlibs() {
    Self.agree(
      starts: [1, 0xFFF0_FFF0, 0x1234_5678],
      { CDeferredLibraries_adler32($0, $1.baseAddress, $1.count) },
      { adler32($0, $1.baseAddress, uInt($1.count)) })
    #expect(CDeferredLibraries_adler32(7, nil, 0) == 1)
  }
}
