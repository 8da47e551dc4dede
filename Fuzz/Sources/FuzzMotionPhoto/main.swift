// Fuzzes the interpretation of a motion photo's XMP: `MotionPhotoDescription` (the
// `Container:Directory` items, `MotionPhotoOffset`, `MicroVideoOffset`, numbers at their
// limits), `videoRange` and `MotionPhotoLocator.locate` over a file of any size up to
// `Int.max` whose bytes are only made when read.
//
// The first byte chooses the input's form:
// - even: the rest is an XMP packet, located in a file that is the packet itself;
// - odd: the rest is a list of 8-byte little-endian values; the first two give the file's
//   size and the image's end, the others become `Item:Length`/`Item:Padding` texts of a
//   built directory, each written by the selector in its low bits as a plain count, a
//   negative number, the value's full 20 digits, 18 nines, an empty text or a zero.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// A file of `count` zero bytes except for an MP4 `ftyp` header at `videoStart`, made
/// only where read.
struct ZeroSource: ByteSource {
  let count: Int
  let videoStart: Int

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    var bytes = [UInt8](repeating: 0, count: min(length, count - offset, 1 << 16))
    let header: [UInt8] = [0, 0, 0, 24] + Array("ftyp".utf8)
    for (index, byte) in header.enumerated() {
      let (position, overflow) = videoStart.addingReportingOverflow(index)
      guard !overflow, position >= offset, position - offset < bytes.count else { continue }
      bytes[position - offset] = byte
    }
    return bytes
  }
}

/// The 8-byte little-endian values of `bytes`, at most `limit` of them.
func values(_ bytes: ArraySlice<UInt8>, limit: Int) -> [UInt64] {
  var result: [UInt64] = []
  var index = bytes.startIndex
  while index + 8 <= bytes.endIndex, result.count < limit {
    result.append(bytes[index..<(index + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) })
    index += 8
  }
  return result
}

/// A directory number's text, chosen by the value's low three bits.
func text(_ value: UInt64) -> String {
  switch value & 7 {
  case 0: String(value >> 3)
  case 1: String(Int64(bitPattern: value))
  case 2: String(value)
  case 3: "999999999999999999"
  case 4: ""
  case 5: "0"
  default: String(value >> 40)
  }
}

/// A Google motion-photo packet whose directory holds a primary item, then the video and
/// the items after it, each `(Length, Padding)`.
func packet(_ items: [(String, String)]) -> [UInt8] {
  var list =
    "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\"/></rdf:li>"
  for (index, (length, padding)) in items.enumerated() {
    let semantic = index == 0 ? "MotionPhoto" : "Depth"
    list +=
      "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"\(semantic)\""
      + " Item:Mime=\"video/mp4\" Item:Length=\"\(length)\" Item:Padding=\"\(padding)\"/>"
      + "</rdf:li>"
  }
  return Array(
    ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF"
      + " xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description"
      + " xmlns:GCamera=\"http://ns.google.com/photos/1.0/camera/\""
      + " xmlns:Container=\"http://ns.google.com/photos/1.0/container/\""
      + " xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\""
      + " GCamera:MotionPhoto=\"1\"><Container:Directory><rdf:Seq>\(list)</rdf:Seq>"
      + "</Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>").utf8)
}

/// Checks what the description and the locator say about `packet` in `source`.
func check(_ packet: [UInt8], in source: some ByteSource, imageEnd: Int) {
  let parsed = XMPPacket.parse(packet)
  if let motion = parsed.motionPhoto {
    if case .fromEnd(let length, let bytesAfter) = motion.placement,
      length <= 0 || bytesAfter < 0
    {
      abort()
    }
    if let range = motion.videoRange(fileSize: source.count, imageEnd: imageEnd),
      range.isEmpty || range.lowerBound < imageEnd || range.upperBound > source.count
    {
      abort()
    }
  }
  switch MotionPhotoLocator.locate(packet: packet, parsed: parsed, in: source, imageEnd: imageEnd)
  {
  case .none: break
  case .video(let range):
    if range.count < 8 || range.lowerBound < imageEnd || range.upperBound > source.count {
      abort()
    }
  case .rejected(let problem):
    // A directory that cannot be used says so; only a packet without one may blame a
    // missing Samsung trailer.
    let blamesTrailer = problem.message.contains("no Samsung trailer")
    if problem.message.isEmpty || (blamesTrailer && parsed.motionPhoto?.placement != .trailer) {
      abort()
    }
  }
}

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMotionPhoto(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  guard let mode = bytes.first else { return 0 }
  if mode % 2 == 0 {
    let packet = Array(bytes.dropFirst())
    check(packet, in: ArrayByteSource(packet), imageEnd: Int(mode / 2))
    return 0
  }
  let numbers = values(bytes.dropFirst(), limit: 2 + 2 * 64)
  guard numbers.count >= 2 else { return 0 }
  let fileSize = Int(numbers[0] >> 1)
  let imageEnd = Int(min(numbers[1] >> 1, UInt64(fileSize)))
  var items: [(String, String)] = []
  var index = 2
  while index + 1 < numbers.count {
    items.append((text(numbers[index]), text(numbers[index + 1])))
    index += 2
  }
  guard !items.isEmpty else { return 0 }
  // The video where a well-formed directory would put it, when the numbers allow.
  let videoStart = fileSize / 2
  check(packet(items), in: ZeroSource(count: fileSize, videoStart: videoStart), imageEnd: imageEnd)
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMotionPhoto(data, size) })
  }
}
