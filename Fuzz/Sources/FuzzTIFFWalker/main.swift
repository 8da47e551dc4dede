// Fuzzes the bounds-checked TIFF walker on its own (in FuzzJPEG it only runs when libexif
// lost a sub-IFD), and the EXIF interpretation of whatever it decodes.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFFWalker(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  guard var walker = TIFFDirectoryWalker(tiff: bytes) else { return 0 }
  let table = walker.read()
  var metadata = MediaMetadata()
  EXIFInterpreter.apply(table, to: &metadata)
  _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTIFFWalker(data, size) })
  }
}
