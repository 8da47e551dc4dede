// Fuzzes our own bounded readers of PSD, JPEG 2000, Canon CRW, Minolta MRW and MPEG
// transport streams over a whole file: every reader reads the same bytes (each checks its
// own magic, so the seeds of one format mostly exercise that reader), and the promises
// they make are checked.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormats(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let source = ArrayByteSource(bytes)
  let readings: [(MediaMetadata, Int)] = [
    (PSDMetadataReader.read(from: source, format: .psd), PSDMetadataReader.maximumSide),
    (
      JPEG2000MetadataReader.read(from: source, format: .jpeg2000),
      JPEG2000MetadataReader.maximumSide
    ),
    (CRWMetadataReader.read(from: source, format: .raw), 1 << 20),
    (MRWMetadataReader.read(from: source, format: .raw), 1 << 16),
    (
      TransportStreamReader.read(from: source, format: .mpegTransportStream),
      TransportStreamReader.maximumSide
    ),
  ]
  for (metadata, maximumSide) in readings {
    // Every problem is a sentence; a size is within the reader's bounds; a duration is a
    // real, non-negative number.
    for problem in metadata.problems where problem.message.isEmpty { abort() }
    if let width = metadata.pixelWidth, !(1...maximumSide).contains(width) { abort() }
    if let height = metadata.pixelHeight, !(1...maximumSide).contains(height) { abort() }
    if let duration = metadata.duration, !(duration.isFinite && duration >= 0) { abort() }
    _ = (metadata.displayedWidth, metadata.dateTimeOriginal?.iso8601, metadata.location)
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzFormats(data, size) })
  }
}
