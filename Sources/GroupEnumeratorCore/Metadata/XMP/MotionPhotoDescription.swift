/// How an XMP packet says that its file is a motion photo: a still with a short video
/// appended after the image data, as Android cameras write them.
///
/// Three forms exist:
/// - Google Motion Photo (`GCamera:MotionPhoto = 1`) with a `Container:Directory`: a list
///   of the file's parts in order, the primary image first; every later part (the video,
///   sometimes more) sits at the end of the file, and its `Item:Length` (plus
///   `Item:Padding`) says how many bytes it takes.
/// - A Motion Photo without a directory but with `GCamera:MotionPhotoOffset`, which
///   some phones write: the video is that many bytes from the end, as for MicroVideo.
/// - The older Google MicroVideo (`GCamera:MicroVideo = 1`): `GCamera:MicroVideoOffset`
///   is the number of bytes from the video's first byte to the end of the file.
/// - Samsung (`GCamera:MotionPhoto = 1` without a directory): the video sits in a
///   `MotionPhoto_Data` field of the trailer that Samsung's `SEFH`…`SEFT` directory at the
///   very end of the file locates; the XMP only says that there is one.
struct MotionPhotoDescription: Sendable, Equatable {
  /// Where the video is, as far as the XMP says.
  enum Placement: Sendable, Equatable {
    /// The video is the `length` bytes that end `bytesAfter` bytes before the end of the
    /// file (items listed after it in the directory take those).
    case fromEnd(length: Int, bytesAfter: Int)
    /// The XMP says there is a video but not where: look for Samsung's trailer.
    case trailer
    /// The directory lists a video, but its numbers cannot place it; `reason` says which
    /// (`gives Item:Length "-5", not a byte count`), for the problem.
    case unusable(reason: String)
  }

  /// The video's MIME type as the directory gives it (`video/mp4`), when it does.
  var mimeType: String?
  /// Where the video is.
  var placement: Placement
  /// When in the video the still was taken, in microseconds, when given.
  var presentationTimestamp: Int?

  /// Reads the description from an XMP packet's properties and directory items.
  ///
  /// - Returns: `nil` when the packet does not say the file is a motion photo.
  init?(properties: [XMPPropertyName: String], items: [[String: String]]) {
    func camera(_ name: String) -> String? {
      properties[XMPPropertyName(namespace: XMPNamespace.googleCamera, name: name)]?
        .trimmingXMPSpaces()
    }
    func count(_ text: String?) -> Int? {
      guard let text, !text.isEmpty, text.utf8.count <= 18,
        Self.isDigits(text)
      else { return nil }
      return Int(text)
    }
    if camera("MotionPhoto") == "1" {
      presentationTimestamp = count(camera("MotionPhotoPresentationTimestampUs"))
      if let videoIndex = items.firstIndex(where: {
        ($0["Semantic"] == "MotionPhoto") || ($0["Mime"]?.hasPrefix("video/") ?? false)
      }), videoIndex > 0, let lengthText = items[videoIndex]["Length"]?.trimmingXMPSpaces(),
        lengthText != "", lengthText != "0"
      {
        mimeType = items[videoIndex]["Mime"]
        placement = Self.directoryPlacement(items, videoIndex: videoIndex, length: lengthText)
      } else if let offset = count(camera("MotionPhotoOffset")), offset > 0 {
        // No directory length but the offset some phones write, counted like
        // MicroVideoOffset.
        mimeType = "video/mp4"
        placement = .fromEnd(length: offset, bytesAfter: 0)
      } else {
        placement = .trailer
      }
    } else if camera("MicroVideo") == "1", let offset = count(camera("MicroVideoOffset")),
      offset > 0
    {
      presentationTimestamp = count(camera("MicroVideoPresentationTimestampUs"))
      mimeType = "video/mp4"
      placement = .fromEnd(length: offset, bytesAfter: 0)
    } else {
      return nil
    }
  }

  /// Where the directory's item at `videoIndex` lies: its `length` bytes, followed by its
  /// own `Item:Padding` and by every later item's length and padding. Each number must be
  /// a byte count of at most 18 digits and their sum must not overflow; otherwise the
  /// placement is ``Placement/unusable(reason:)``, never a trap.
  private static func directoryPlacement(
    _ items: [[String: String]], videoIndex: Int, length lengthText: String
  ) -> Placement {
    /// The item's property `name` as a byte count: 0 when absent.
    func count(_ item: [String: String], _ name: String) throws(Unusable) -> Int {
      guard let raw = item[name] else { return 0 }
      let text = raw.trimmingXMPSpaces()
      guard !text.isEmpty, text.utf8.count <= 18,
        Self.isDigits(text), let value = Int(text)
      else {
        throw Unusable(reason: "gives Item:\(name) \(XMPPacket.quoted(raw)), not a byte count")
      }
      return value
    }
    do throws(Unusable) {
      let length = try count(["Length": lengthText], "Length")
      guard length > 0 else {
        return .unusable(reason: "gives the video an Item:Length of 0 bytes")
      }
      var after = try count(items[videoIndex], "Padding")
      for item in items[(videoIndex + 1)...] {
        for name in ["Length", "Padding"] {
          let value = try count(item, name)
          let (sum, overflow) = after.addingReportingOverflow(value)
          guard !overflow else {
            return .unusable(
              reason: "lists items after the video whose lengths add up past any file's size")
          }
          after = sum
        }
      }
      return .fromEnd(length: length, bytesAfter: after)
    } catch {
      return .unusable(reason: error.reason)
    }
  }

  /// Whether every character of `text` is an ASCII digit: the same answer as asking each
  /// character `isASCII && isNumber`, from the bytes (a digit is one byte, and no byte of
  /// a longer character is one), without a Unicode property lookup per character.
  private static func isDigits(_ text: String) -> Bool {
    text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }

  /// Why a directory number cannot be used.
  private struct Unusable: Error {
    var reason: String
  }

  /// The byte range of the video in a file of `fileSize` bytes whose image data ends at
  /// `imageEnd` (the video must lie wholly after it), when the XMP places it.
  ///
  /// - Returns: `nil` for ``Placement/trailer``, or when the lengths do not fit the file.
  func videoRange(fileSize: Int, imageEnd: Int) -> Range<Int>? {
    guard case .fromEnd(let length, let bytesAfter) = placement else { return nil }
    let (end, endOverflow) = fileSize.subtractingReportingOverflow(bytesAfter)
    let (start, startOverflow) = end.subtractingReportingOverflow(length)
    guard !endOverflow, !startOverflow, start >= imageEnd, start < end, end <= fileSize else {
      return nil
    }
    return start..<end
  }
}
