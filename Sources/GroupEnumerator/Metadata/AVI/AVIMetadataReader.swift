/// Reads an AVI's size and duration from its RIFF header list (Microsoft's AVI RIFF
/// reference; OpenDML AVI 2.0 for files over 1 GB).
///
/// An AVI is `RIFF` `AVI `, whose first `LIST` `hdrl` holds the main header `avih`
/// (microseconds per frame, total frames, width, height) and one `LIST` `strl` per stream
/// with its header `strh` (type, scale, rate, length). The picture's size comes from
/// `avih`; the duration from the video stream's `strh` (`length × scale / rate`), which
/// counts every frame of an OpenDML file, else from `avih` (which counts only the first
/// 1 GB part). Only the header list is read, never the movie data; every chunk size is
/// checked against the file and the list, and the walk stops after ``maximumChunks``.
enum AVIMetadataReader: MetadataReader {
  /// The most header-list bytes read: real ones are a few KiB (OpenDML index chunks make
  /// some tens of KiB).
  static let maximumHeaderListSize = 1 << 20
  /// The most chunks looked at inside the header list.
  static let maximumChunks = 1024

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    collecting { metadata throws(AssetProblem) in try read(source, into: &metadata) }
  }

  private static func read(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let le = IntegerReader.littleEndian
    let head = try source.bytes(at: 0, length: 24)
    guard head.count == 24, head.starts(with: Array("RIFF".utf8)),
      Array(head[8..<12]) == Array("AVI ".utf8), Array(head[12..<16]) == Array("LIST".utf8),
      Array(head[20..<24]) == Array("hdrl".utf8), let listSize = le.uint32(head, at: 16)
    else {
      metadata.report(
        AssetProblem(.malformed, "The AVI does not start with its RIFF header list (hdrl)."))
      return
    }
    let available = source.count - 20
    guard listSize >= 4, Int(listSize) <= available else {
      metadata.report(
        AssetProblem(
          .malformed,
          "The AVI header list claims \(listSize) bytes; the file holds \(max(0, available))."))
      return
    }
    guard Int(listSize) <= maximumHeaderListSize else {
      metadata.report(
        AssetProblem(
          .malformed,
          "The AVI header list is \(listSize) bytes, more than the \(maximumHeaderListSize) "
            + "read; its size and duration are not read."))
      return
    }
    let list = try source.bytes(at: 24, length: Int(listSize) - 4)
    var main: [UInt8]?
    var videoStream: [UInt8]?
    var chunks = 0
    walk(list[...], depth: 0, chunks: &chunks) { kind, body in
      if kind == "avih", main == nil { main = Array(body) }
      if kind == "strh", videoStream == nil, body.starts(with: Array("vids".utf8)) {
        videoStream = Array(body)
      }
    }
    if chunks > maximumChunks {
      metadata.report(
        AssetProblem(
          .malformed,
          "The AVI header list has more than \(maximumChunks) chunks; the rest are not read."))
    }
    guard let main, let microseconds = le.uint32(main, at: 0),
      let totalFrames = le.uint32(main, at: 16), let width = le.uint32(main, at: 32),
      let height = le.uint32(main, at: 36)
    else {
      metadata.report(
        AssetProblem(.malformed, "The AVI has no complete main header (avih)."))
      return
    }
    if width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 {
      metadata.pixelWidth = Int(width)
      metadata.pixelHeight = Int(height)
    } else {
      metadata.report(
        AssetProblem(.invalidValue, "The AVI's frames are \(width)×\(height) pixels."))
    }
    if let stream = videoStream, let scale = le.uint32(stream, at: 20),
      let rate = le.uint32(stream, at: 24), let length = le.uint32(stream, at: 32),
      scale > 0, rate > 0, length > 0
    {
      metadata.duration = Double(length) * Double(scale) / Double(rate)
    } else if microseconds > 0, totalFrames > 0 {
      metadata.duration = Double(totalFrames) * Double(microseconds) / 1_000_000
    }
  }

  /// Calls `visit` with each chunk's four-character code and body inside `bytes`,
  /// descending into `LIST` chunks (two levels at most). Stops at the first chunk whose
  /// size runs past its list, and after ``maximumChunks`` chunks (counted in `chunks`).
  private static func walk(
    _ bytes: ArraySlice<UInt8>, depth: Int, chunks: inout Int,
    visit: (String, ArraySlice<UInt8>) -> Void
  ) {
    var offset = 0
    while offset + 8 <= bytes.count {
      chunks += 1
      if chunks > maximumChunks { return }
      let start = bytes.startIndex + offset
      let kind = String(decoding: bytes[start..<(start + 4)], as: UTF8.self)
      guard let size = IntegerReader.littleEndian.uint32(bytes, at: offset + 4),
        Int(size) <= bytes.count - offset - 8
      else { return }
      let body = bytes[(start + 8)..<(start + 8 + Int(size))]
      if kind == "LIST", depth < 2, body.count >= 4 {
        walk(body.dropFirst(4), depth: depth + 1, chunks: &chunks, visit: visit)
      } else {
        visit(kind, body)
      }
      offset += 8 + Int(size) + Int(size & 1)  // chunks are padded to an even size
    }
  }
}
