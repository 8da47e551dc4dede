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
    var generator = SplitMix(seed: 0x5EED)
    var inputs = (0...70).map { length in (0..<length).map { _ in generator.nextByte() } }
    inputs.append((0..<200_000).map { _ in generator.nextByte() })
    inputs.append([UInt8](repeating: 0xFF, count: 6_000))
    return inputs
  }()

  @Test func theCRC32WithoutZlibIsZlibs() {
    for input in Self.inputs {
      for start: UInt in [0, 0xFFFF_FFFF, 0x1234_5678] {
        let ours = input.withUnsafeBufferPointer {
          CDeferredLibraries_crc32(start, $0.baseAddress, $0.count)
        }
        let zlibs = input.withUnsafeBufferPointer {
          crc32(uLong(start), $0.baseAddress, uInt($0.count))
        }
        #expect(ours == zlibs, "length \(input.count), start \(start)")
      }
    }
    // The PNG specification's own example: the CRC of "IEND".
    let iend = Array("IEND".utf8).withUnsafeBufferPointer {
      CDeferredLibraries_crc32(0, $0.baseAddress, $0.count)
    }
    #expect(iend == 0xAE42_6082)
    #expect(CDeferredLibraries_crc32(7, nil, 0) == 0)
  }

  @Test func theAdler32WithoutZlibIsZlibs() {
    for input in Self.inputs {
      for start: UInt in [1, 0xFFF0_FFF0, 0x1234_5678] {
        let ours = input.withUnsafeBufferPointer {
          CDeferredLibraries_adler32(start, $0.baseAddress, $0.count)
        }
        let zlibs = input.withUnsafeBufferPointer {
          adler32(uLong(start), $0.baseAddress, uInt($0.count))
        }
        #expect(ours == zlibs, "length \(input.count), start \(start)")
      }
    }
    #expect(CDeferredLibraries_adler32(7, nil, 0) == 1)
  }
}

/// A small deterministic generator (SplitMix64), for inputs that are the same every run.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func nextByte() -> UInt8 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return UInt8(truncatingIfNeeded: value ^ (value >> 31))
  }
}
