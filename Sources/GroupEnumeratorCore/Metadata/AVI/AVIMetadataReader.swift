/// Reads an AVI's size and duration from its RIFF header list (as classic AVI
/// lays it out, and its OpenDML extension for files over 1 GB).
///
/// An AVI is `RIFF` `AVI `, whose first `LIST` `hdrl` holds the main header `avih`
/// (microseconds per frame, total frames, width, height) and one `LIST` `strl` per stream
/// with its header `strh` (type, scale, rate, length). The picture's size comes from
/// `avih`; the duration from the video stream's `strh` (`length × scale / rate`), which
/// counts every frame of an OpenDML file, else from `avih` (which counts only the first
/// 1 GB part). The recording date is the header list's `IDIT` chunk, else the `ICRD` item
/// of a `LIST` `INFO` among the first top-level chunks (``AVIDateText`` gives the forms).
/// Only the header list and a small `INFO` list are read, never the movie data; every
/// chunk size is checked against the file and the list, and the walk stops after
/// ``maximumChunks`` (after ``maximumTopLevelChunks`` at the top level).
enum AVIMetadataReader: MetadataReader {
  /// The most header-list bytes read: real ones are a few KiB (OpenDML index chunks make
  /// some tens of KiB).
  static let maximumHeaderListSize = 1 << 20
  /// The most chunks looked at inside the header list.
  static let maximumChunks = 1024
  /// The most top-level chunks after the header list looked at for a `LIST` `INFO`
  /// (one header read each; writers put it before or just after `movi`).
  static let maximumTopLevelChunks = 8
  /// The most `INFO` list bytes read: its items are short texts.
  static let maximumInfoListSize = 1 << 16

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
    var recordingDate: [UInt8]?
    var chunks = 0
    walk(list[...], depth: 0, chunks: &chunks) { kind, body in
      if kind == "avih", main == nil { main = Array(body) }
      if kind == "strh", videoStream == nil, body.starts(with: Array("vids".utf8)) {
        videoStream = Array(body)
      }
      if kind == "IDIT", recordingDate == nil { recordingDate = Array(body) }
    }
    if let recordingDate {
      if let parsed = AVIDateText.parse(
        recordingDate, source: .aviIDIT, allowsDateOnly: false)
      {
        metadata.dateTimeOriginal = parsed.date
      } else {
        metadata.report(
          AssetProblem(
            .invalidValue,
            "The AVI's recording date (IDIT) \(quoted(recordingDate)) is not a date; it was "
              + "ignored."))
      }
    }
    if metadata.dateTimeOriginal == nil {
      try readCreationDate(source, after: 24 + (Int(listSize) - 4), into: &metadata)
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

  /// Reads `ICRD` from a `LIST` `INFO` among the top-level chunks from `offset` on.
  private static func readCreationDate(
    _ source: some ByteSource, after offset: Int, into metadata: inout MediaMetadata
  ) throws(AssetProblem) {
    let le = IntegerReader.littleEndian
    var offset = offset + offset & 1
    for _ in 0..<maximumTopLevelChunks {
      let header = try source.bytes(at: offset, length: 12)
      guard header.count >= 8, let size = le.uint32(header, at: 4) else { return }
      let kind = String(decoding: header[0..<4], as: UTF8.self)
      if kind == "LIST", header.count == 12, Array(header[8..<12]) == Array("INFO".utf8) {
        guard size >= 4, Int(size) <= maximumInfoListSize else { return }
        let body = try source.bytes(at: offset + 12, length: Int(size) - 4)
        var chunks = 0
        var creation: [UInt8]?
        walk(body[...], depth: 2, chunks: &chunks) { kind, text in
          if kind == "ICRD", creation == nil { creation = Array(text) }
        }
        guard let creation else { return }
        if let parsed = AVIDateText.parse(creation, source: .aviICRD, allowsDateOnly: true) {
          metadata.dateTimeOriginal =
            parsed.hasTime ? parsed.date : parsed.date.recorded(as: .aviICRDDateOnly)
        } else {
          metadata.report(
            AssetProblem(
              .invalidValue,
              "The AVI's creation date (ICRD) \(quoted(creation)) is not a date; it was "
                + "ignored."))
        }
        return
      }
      // The next chunk: 8 header bytes, the body, the pad byte to an even size.
      let (next, overflow) = offset.addingReportingOverflow(8 + Int(size) + Int(size & 1))
      guard !overflow, next < source.count else { return }
      offset = next
    }
  }

  /// A chunk's text for a message: printable ASCII, at most 40 characters, quoted.
  private static func quoted(_ bytes: [UInt8]) -> String {
    let printable = bytes.prefix(40).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
    return "'" + String(decoding: printable, as: UTF8.self) + "'"
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
