// Fuzzes the HEIF/AVIF still reader (`meta` and its `pitm`/`iinf`/`iloc`/`iprp`/`iref`/
// `idat` children, the Exif item, libexif over it, Apple's MakerNote), the EXIF thumbnail
// path, and the CR3 reader (Canon's `uuid` box and its TIFF blocks, its `PRVW` and `THMB`
// previews) over the same bytes: all three walk ISO-BMFF boxes, so one corpus feeds them.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let source = ArrayByteSource(bytes)
  let heif = HEIFMetadataReader.read(from: source)
  // A thumbnail is a JPEG cut from the EXIF block, never an empty buffer.
  if let thumbnail = HEIFMetadataReader.thumbnail(from: source), thumbnail.isEmpty { abort() }
  let cr3 = CR3MetadataReader.read(from: source)
  // A CR3's preview is a run of the input that starts with a JPEG's start of image.
  if let preview = CR3MetadataReader.thumbnail(from: source),
    preview.count < 3 || preview.count > size || preview[0] != 0xFF || preview[1] != 0xD8
  {
    abort()
  }
  for metadata in [heif, cr3] {
    // Every problem must be a sentence; reading the derived values exercises them too.
    for problem in metadata.problems where problem.message.isEmpty { abort() }
    _ = (metadata.displayedWidth, metadata.displayedHeight, metadata.location)
    _ = metadata.dateTimeOriginal?.iso8601
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzHEIF(data, size) })
  }
}
