// Fuzzes the whole JPEG path: the marker walk (JPEGStructure), libexif over the APP1
// payload, the TIFF walker fallback, and the EXIF interpretation (dates, GPS, orientation).
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let metadata = JPEGMetadataReader.read(from: ArrayByteSource(bytes))
  // Every problem must be a sentence; reading the derived values exercises them too.
  for problem in metadata.problems where problem.message.isEmpty { abort() }
  _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzJPEG(data, size) })
  }
}
