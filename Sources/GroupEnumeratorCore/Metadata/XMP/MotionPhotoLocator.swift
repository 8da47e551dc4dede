/// Finds the video of a motion photo inside its still's file, from the still's XMP and,
/// for Samsung, its trailer, and checks it before anyone trusts it: the video must lie
/// wholly after the image data, fit the file, and start with an ISO-BMFF `ftyp` box.
enum MotionPhotoLocator {
  /// What the XMP and the file say about an embedded video.
  enum Finding: Sendable, Equatable {
    /// The XMP does not say the file is a motion photo.
    case none
    /// The video's bytes: checked, the range of an MP4 inside the file.
    case video(Range<Int>)
    /// The XMP says the file is a motion photo, but its video does not check out.
    case rejected(AssetProblem)
  }

  /// Whether `packet` may say that its file is a motion photo: a byte search for the
  /// property names, so that an ordinary photo's XMP is never parsed for this.
  static func mayDescribeMotionPhoto(_ packet: [UInt8]) -> Bool {
    contains(packet, Array("MotionPhoto".utf8)) || contains(packet, Array("MicroVideo".utf8))
  }

  /// Records in `metadata` the video `packet` describes (``MediaMetadata/embeddedVideoRange``),
  /// or the problem of one that does not check out.
  static func apply(
    _ packet: [UInt8], parsed: XMPPacket? = nil, in source: some ByteSource, imageEnd: Int?,
    to metadata: inout MediaMetadata
  ) {
    switch locate(packet: packet, parsed: parsed, in: source, imageEnd: imageEnd) {
    case .none: break
    case .video(let range): metadata.embeddedVideoRange = range
    case .rejected(let problem): metadata.report(problem)
    }
  }

  /// Locates the video that `packet` describes in `source`.
  ///
  /// - Parameters:
  ///   - packet: The still's XMP packet.
  ///   - parsed: The packet already parsed, if the caller has it (it is parsed here
  ///     otherwise, and only when it may describe a motion photo).
  ///   - source: The whole file.
  ///   - imageEnd: The first byte the video may occupy: the end of what the still's reader
  ///     walked (a JPEG's first `SOS`, a HEIF's image data); `nil` when the reader did not
  ///     find the image data (a JPEG whose marker walk failed before `SOS`).
  static func locate(
    packet: [UInt8], parsed: XMPPacket? = nil, in source: some ByteSource, imageEnd: Int?
  ) -> Finding {
    guard mayDescribeMotionPhoto(packet),
      let description = (parsed ?? XMPPacket.parse(packet)).motionPhoto
    else { return .none }
    guard let imageEnd else {
      return .rejected(
        AssetProblem(
          .malformed,
          "The XMP says this is a motion photo, but the still's image data was not found, so"
            + " no video can be told apart from it; no video read."))
    }
    let size = source.count
    let range: Range<Int>
    let what: String
    switch description.placement {
    case .fromEnd(let length, let bytesAfter):
      what =
        bytesAfter == 0
        ? "the last \(length) bytes" : "the \(length) bytes before the last \(bytesAfter)"
      guard let found = description.videoRange(fileSize: size, imageEnd: imageEnd) else {
        return .rejected(
          AssetProblem(
            .malformed,
            "The XMP says this is a motion photo whose video is \(what), but only"
              + " \(max(0, size - max(0, imageEnd))) of the file's \(size) bytes lie after its"
              + " image data; no video read."))
      }
      range = found
    case .unusable(let reason):
      return .rejected(
        AssetProblem(
          .malformed,
          "The XMP says this is a motion photo, but its Container:Directory \(reason); no video"
            + " read."))
    case .trailer:
      what = "the MotionPhoto_Data field"
      let found: Range<Int>?
      do {
        found = try SamsungTrailer.videoRange(in: source, imageEnd: imageEnd)
      } catch {
        return .rejected(error)
      }
      guard let found else {
        return .rejected(
          AssetProblem(
            .malformed,
            "The XMP says this is a motion photo, but no Samsung trailer after the image data"
              + " holds its video; no video read."))
      }
      range = found
    }
    let header = (try? source.bytes(at: range.lowerBound, length: 8)) ?? []
    guard range.count >= 8, header.count == 8, Array(header[4..<8]) == Array("ftyp".utf8) else {
      return .rejected(
        AssetProblem(
          .malformed,
          "The XMP says this is a motion photo, but \(what) (bytes \(range.lowerBound)"
            + "–\(range.upperBound)) are not an MP4: no ftyp box; no video read."))
    }
    return .video(range)
  }

  private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    ByteSearch.contains(bytes, needle)
  }
}
