// Fuzzes our ISO-BMFF/QuickTime box reader over a whole file: the box walk (sizes 0 and
// 1, 64-bit sizes, nesting), `mvhd`/`tkhd`/`hdlr`, the `meta` keys and item list, `udta`
// location text (ISO 6709) and the QuickTime date text.
import CFuzzDriver
import Foundation
import Glibc

@testable import GroupEnumeratorCore

/// A fixed "now", so that one input always takes the same path (dates are judged
/// against it).
let fuzzNow = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuickTime(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(bytes), now: fuzzNow)
  // Every problem must be a sentence; reading the derived values exercises them too.
  for problem in metadata.problems where problem.message.isEmpty { abort() }
  if let duration = metadata.duration, !duration.isFinite || duration < 0 { abort() }
  _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
  _ = (metadata.quickTimeCreationDate?.iso8601, metadata.movieHeaderCreationDate?.iso8601)
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzQuickTime(data, size) })
  }
}
