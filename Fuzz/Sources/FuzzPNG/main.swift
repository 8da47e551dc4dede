// Fuzzes the PNG chunk reader over a whole file (chunk walk, CRCs, `eXIf`, `tEXt`/`zTXt`/
// `iTXt` raw EXIF profiles with their hex decoding, zlib through `ZlibInflater`, then
// libexif and the EXIF interpretation), and `ZlibInflater` alone on the same bytes.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let metadata = PNGMetadataReader.read(from: ArrayByteSource(bytes))
  // Every problem must be a sentence; reading the derived values exercises them too.
  for problem in metadata.problems where problem.message.isEmpty { abort() }
  _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
  // The inflater's cap is a promise: never more than `limit` bytes back.
  let limit = Int(bytes.first ?? 0) * 64
  if let inflated = try? ZlibInflater.inflate(Array(bytes.dropFirst()), limit: limit),
    inflated.count > limit
  {
    abort()
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzPNG(data, size) })
  }
}
