// Fuzzes the gexiv2 wrapper the way the engine uses it: the bytes are sniffed, and only
// what the engine hands to gexiv2 reaches it (WebP, JPEG XL, TIFF and the TIFF-based
// RAWs; BigTIFF and CR3 go to our own readers on the way, as in `AssetReader`). Then the
// catch-all C++ shim (`gexiv2_metadata_open_buf`), the tag lookups, the conversion of
// exiv2's values into an `EXIFTagTable`, `EXIFInterpreter`, and the preview path
// (`largestJPEGPreview`) run over the same bytes. exiv2 itself is not instrumented:
// coverage comes from our code, a crash inside exiv2 still stops the run.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExiv2(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let source = ArrayByteSource(bytes)
  // The first byte's low bit stands for the name: TIFF content named like a RAW (`.dng`)
  // is `.raw`, as `MediaSniffer.format(ofHeader:name:)` decides it.
  let name = Array(((bytes.first ?? 0) & 1 == 1 ? "x.dng" : "x.tif").utf8)
  guard let format = MediaSniffer.format(ofHeader: bytes, name: name) else { return 0 }
  let metadata: MediaMetadata
  switch format {
  case .tiff, .raw:
    metadata = MetadataReaderTable.read(from: source, format: format)
  case .webp, .jpegXL:
    metadata = Exiv2MetadataReader.read(from: source, format: format)
  default:
    return 0  // Never handed to gexiv2 by the engine.
  }
  // Every problem must be a sentence; reading the derived values exercises them too.
  for problem in metadata.problems where problem.message.isEmpty { abort() }
  _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
  _ = metadata.dateTimeOriginal?.iso8601
  // A preview, when there is one, is never an empty buffer nor a negative size.
  if let preview = try? Exiv2MetadataReader.largestJPEGPreview(from: source, format: format) {
    if preview.bytes.isEmpty || preview.width < 0 || preview.height < 0 { abort() }
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzExiv2(data, size) })
  }
}
