/// What a walk over a JPEG's marker segments found before the image data.
///
/// A JPEG is `SOI`, then marker segments (`FF xx` + a big-endian
/// length that counts itself), up to the first `SOS`, after which the entropy-coded data
/// begins. Each segment header is read on its own, so a file is never read whole: only
/// the EXIF `APP1` payload (at most 65,533 bytes) and a few bytes of `SOFn` are fetched.
struct JPEGStructure {
  /// The EXIF block of the first `APP1` segment that starts with `Exif\0\0`.
  var exifBlock: EXIFBlock?
  /// The XMP packet of the first `APP1` segment that starts with XMP's namespace
  /// (`http://ns.adobe.com/xap/1.0/` and a NUL), without that identifier.
  var xmpPacket: [UInt8]?
  /// The frame size from the first `SOFn` segment (the stored, not displayed, size).
  var frameWidth: Int?
  /// The frame height from the first `SOFn` segment; `nil` when it is 0 (defined by `DNL`).
  var frameHeight: Int?
  /// Whether the first `SOFn` gave a height of 0: the `DNL` segment after the first scan
  /// gives it (``heightFromDNL(in:imageDataStart:)``).
  var heightIsInDNL = false
  /// Where the first `SOS` marker is: the marker walk's end, before which no image data
  /// lies; `nil` when the walk stopped before it.
  var imageDataStart: Int?
  /// What was wrong with the marker structure, in the order found.
  var problems: [AssetProblem] = []

  /// Walks the markers of `source` up to `SOS`.
  ///
  /// An empty source gives ``AssetProblem/Code/emptyFile``, one that does not start with
  /// `FF D8` gives ``AssetProblem/Code/unrecognizedFormat``; a file that ends before `SOS`
  /// (inside a marker, a segment header or a segment) gives
  /// ``AssetProblem/Code/truncated``; structural faults (a segment length under 2, a byte
  /// where a marker should be, a stray `RSTn`, `EOI` before `SOS`) give
  /// ``AssetProblem/Code/malformed``. Either ends the walk, keeping what was found.
  ///
  /// - Complexity: O(*s*) reads for *s* segments, plus the EXIF payload's length.
  init(parsing source: some ByteSource) {
    do {
      try walk(source)
    } catch {
      problems.append(error)
    }
  }

  private mutating func walk(_ source: some ByteSource) throws(AssetProblem) {
    let count = source.count
    guard count > 0 else {
      problems.append(.init(.emptyFile, "The file is empty."))
      return
    }
    guard try source.bytes(at: 0, length: 2) == [0xFF, 0xD8] else {
      problems.append(.init(.unrecognizedFormat, "The file does not start with a JPEG SOI marker."))
      return
    }
    var position = 2
    var sawStrayMarker = false
    while true {
      let header = try source.bytes(at: position, length: 4)
      guard let first = header.first else {
        problems.append(
          .init(.truncated, "The JPEG ends at byte \(position) before its image data."))
        return
      }
      guard first == 0xFF else {
        problems.append(
          .init(.malformed, "Expected a JPEG marker at byte \(position), found 0x\(hex(first))."))
        return
      }
      guard header.count >= 2 else {
        problems.append(.init(.truncated, "The JPEG ends inside a marker at byte \(position)."))
        return
      }
      let marker = header[1]
      switch marker {
      case 0xFF:  // A fill byte (T.81 B.1.1.2): the marker code follows later.
        position += 1
        continue
      case 0xDA:  // SOS: the image data starts; nothing after it is metadata.
        imageDataStart = position
        return
      case 0xD9:
        problems.append(
          .init(.malformed, "The JPEG ends (EOI) at byte \(position) before any image data."))
        return
      case 0x01, 0xD0...0xD7:  // TEM, RSTn: standalone, no length.
        if marker != 0x01, !sawStrayMarker {
          sawStrayMarker = true
          problems.append(
            .init(.malformed, "A restart marker at byte \(position) is outside image data."))
        }
        position += 2
        continue
      case 0x00, 0xD8:
        problems.append(
          .init(.malformed, "Invalid JPEG marker FF \(hex(marker)) at byte \(position)."))
        return
      default:
        break
      }
      guard header.count == 4 else {
        problems.append(
          .init(.truncated, "The JPEG ends inside a segment header at byte \(position)."))
        return
      }
      let length = Int(IntegerReader.bigEndian.uint16(header, at: 2) ?? 0)
      guard length >= 2 else {
        problems.append(
          .init(.malformed, "Segment FF \(hex(marker)) at byte \(position) has length \(length)."))
        return
      }
      let payloadStart = position + 4
      let payloadLength = length - 2
      guard payloadLength <= count - payloadStart else {
        problems.append(
          .init(
            .truncated,
            "Segment FF \(hex(marker)) at byte \(position) declares \(length) bytes; "
              + "only \(count - position - 2) remain."))
        return
      }
      try readSegment(marker: marker, at: payloadStart, length: payloadLength, from: source)
      position = payloadStart + payloadLength
    }
  }

  private mutating func readSegment(
    marker: UInt8, at start: Int, length: Int, from source: some ByteSource
  ) throws(AssetProblem) {
    switch marker {
    case 0xE1:
      try readAPP1(at: start, length: length, from: source)
    case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
      guard frameWidth == nil, frameHeight == nil else { return }
      // P (1 byte), Y (2), X (2): T.81 B.2.2.
      let frame = length >= 5 ? try source.bytes(at: start, length: 5) : []
      guard frame.count == 5 else {
        problems.append(.init(.malformed, "The frame header at byte \(start) is too short."))
        return
      }
      let height = Int(IntegerReader.bigEndian.uint16(frame, at: 1) ?? 0)
      let width = Int(IntegerReader.bigEndian.uint16(frame, at: 3) ?? 0)
      if width > 0 { frameWidth = width }
      if height > 0 { frameHeight = height } else { heightIsInDNL = true }
    default:
      return
    }
  }

  /// An `APP1` segment: the first EXIF one and the first XMP one are kept.
  private mutating func readAPP1(at start: Int, length: Int, from source: some ByteSource)
    throws(AssetProblem)
  {
    let identifier = try source.bytes(at: start, length: min(length, Self.xmpIdentifier.count))
    if exifBlock == nil, identifier.starts(with: EXIFBlock.identifier) {
      let payload = try source.bytes(at: start, length: length)
      guard payload.count == length else {
        problems.append(
          .init(.malformed, "The EXIF segment at byte \(start) could not be read whole."))
        return
      }
      exifBlock = EXIFBlock(app1Payload: payload)
    } else if xmpPacket == nil, length > Self.xmpIdentifier.count,
      identifier == Self.xmpIdentifier
    {
      let packetLength = length - Self.xmpIdentifier.count
      let packet = try source.bytes(at: start + Self.xmpIdentifier.count, length: packetLength)
      guard packet.count == packetLength else {
        problems.append(
          .init(.malformed, "The XMP segment at byte \(start) could not be read whole."))
        return
      }
      xmpPacket = packet
    }
  }

  /// The end-of-image marker (T.81 B.1.1.3 `EOI`).
  static let endOfImage: [UInt8] = [0xFF, 0xD9]
  /// What ends a Samsung trailer (``SamsungTrailer``), which follows the end-of-image marker.
  static let samsungTrailerEnd = Array("SEFT".utf8)

  /// How many bytes before its end (or its embedded video) a JPEG is searched for its
  /// end-of-image marker: room for the trailers cameras and phones append after `EOI`
  /// (docs/Formats.md lists the longest seen: a BlackBerry writes 36,864 bytes, a Sony
  /// camcorder 26,144). Entropy-coded data never holds `FF D9` (an `FF` there is always
  /// followed by `00` or a restart marker), so the bound only limits the read: the last
  /// ``FileTail/firstLookLength`` bytes settle almost every file, and the rest of the
  /// span is read only for a file with a trailer or without its end.
  static let endCheckLength = FileTail.maximumLength

  /// The ``AssetProblem/Code/truncated`` problem of a JPEG whose image data has no end:
  /// no end-of-image marker (`FF D9`) after the first `SOS` in the last ``endCheckLength``
  /// bytes before the file's end, or before its embedded video (a motion photo keeps its
  /// MP4 after the still's `EOI`). Bytes after `EOI` (a trailer) are not a cut. The last
  /// ``FileTail/firstLookLength`` bytes are read first, the rest of the span only when
  /// they hold no `FF D9` (``FileTail/init(of:end:notBefore:length:lookingFor:)``).
  ///
  /// Files whose end cannot be told are never called truncated: a Samsung trailer
  /// (`…SEFT` at the end) may be longer than the bytes looked at, bytes that are all zero
  /// are padding (or were never written), and a motion photo whose video was not found
  /// already has a problem saying so.
  ///
  /// - Parameters:
  ///   - imageDataStart: Where the first `SOS` is; no `FF D9` before it counts.
  ///   - videoStart: Where an embedded video starts, if the file has one.
  ///   - mayBeMotionPhoto: Whether the XMP may describe a motion photo.
  /// - Returns: The problem, or `nil` when the end was found or cannot be told.
  static func truncation(
    of source: some ByteSource, imageDataStart: Int, videoStart: Int?, mayBeMotionPhoto: Bool
  ) -> AssetProblem? {
    let end = min(videoStart ?? source.count, source.count)
    guard videoStart != nil || !mayBeMotionPhoto,
      let tail = try? FileTail(
        of: source, end: end, notBefore: imageDataStart + 2, length: endCheckLength,
        lookingFor: endOfImage),
      !tail.contains(endOfImage), !tail.isZeroFilled
    else { return nil }
    if videoStart == nil, tail.ends(with: samsungTrailerEnd) { return nil }
    let place = videoStart == nil ? "its last" : "the last"
    let before = videoStart == nil ? "" : " before its embedded video"
    return AssetProblem(
      .truncated,
      "The JPEG has no end-of-image marker (FF D9) in \(place) \(tail.bytes.count) bytes"
        + "\(before) (up to byte \(end)): it is cut short; what comes before the cut was read.")
  }

  /// The number of lines a `DNL` segment (T.81 B.2.5: `FF DC`, length 4, the height)
  /// gives, for a frame whose `SOFn` height is 0. `DNL` follows the first scan, which in
  /// a one-scan image ends just before `EOI`: it is looked for in the same span as the
  /// end check (the last ``endCheckLength`` bytes after `SOS`), followed by a marker.
  /// Entropy-coded data never holds `FF DC`, so the first such segment is the one.
  ///
  /// - Returns: The height, or `nil` when no `DNL` with a height above 0 is there.
  static func heightFromDNL(in source: some ByteSource, imageDataStart: Int) -> Int? {
    guard
      let tail = try? FileTail(
        of: source, notBefore: imageDataStart + 2, length: endCheckLength)
    else { return nil }
    let bytes = tail.bytes
    var index = 0
    while index + 6 <= bytes.count {
      if bytes[index] == 0xFF, bytes[index + 1] == 0xDC, bytes[index + 2] == 0,
        bytes[index + 3] == 4, index + 6 == bytes.count || bytes[index + 6] == 0xFF
      {
        let height = Int(bytes[index + 4]) << 8 | Int(bytes[index + 5])
        return height > 0 ? height : nil
      }
      index += 1
    }
    return nil
  }

  /// What starts an XMP `APP1` payload: Adobe's namespace URI and a NUL.
  static let xmpIdentifier = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

  private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
  }
}
