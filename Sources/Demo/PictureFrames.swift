import FoundationEssentials
import GroupEnumeratorCore

/// The messages between the Demo and its picture workers (``WorkerPictures``,
/// ``PictureWorker``), over the worker's standard input and output.
///
/// Every message is a frame: its payload's length (4 bytes, little-endian) and the payload.
/// A request asks for one picture; the worker answers each request with one reply, in
/// order. Every length is bounded before anything is allocated: a reply may be at most
/// ``maximumReply`` bytes, a request ``maximumRequest``.
///
/// | payload | bytes |
/// | --- | --- |
/// | request | version (1), side (8, two's complement), fills (1: 0 or 1), the asset's library path (the rest, at least one byte) |
/// | reply: picture | 0, PNG (1: 0 or 1), source (1: ``sourceCodes``), width (4), height (4), the encoded picture (the rest, at least one byte) |
/// | reply: failure | 1, the reason in UTF-8 (the rest) |
enum PictureFrames {
  /// The request payload's first byte.
  static let version: UInt8 = 1
  /// The largest reply payload accepted: a picture of 16,384 pixels a side as PNG fits.
  static let maximumReply = 64 << 20
  /// The largest request payload accepted (a path is at most 4,096 bytes on Linux).
  static let maximumRequest = 64 << 10
  /// The longest failure reason sent; a longer one is cut.
  static let maximumReason = 4 << 10
  /// The bytes of the length that starts every frame.
  static let headerSize = 4
  /// Where a picture's pixels came from, as one byte.
  static let sourceCodes: [AssetImage.Source] = [
    .embeddedThumbnail, .embeddedPreview, .decodedImage, .videoFrame, .thumbnailCache,
  ]

  /// What a worker is asked: a picture of the asset at `path`.
  struct Request: Equatable, Sendable {
    /// The asset's primary file, relative to the library root.
    var path: LibraryPath
    /// The box's side in pixels (checked by the library, as in this process).
    var side: Int
    /// Aspect-fill and crop, rather than aspect-fit.
    var fills: Bool
  }

  /// Why bytes are not a well-formed frame.
  enum Malformed: Error, Equatable, Sendable, CustomStringConvertible {
    /// A frame announced more bytes than its kind may have.
    case tooLong(length: UInt32, limit: Int)
    /// The stream ended inside a frame.
    case truncated(received: Int, expected: Int)
    /// A payload whose fields are not what the protocol allows.
    case invalid(String)

    var description: String {
      switch self {
      case .tooLong(let length, let limit):
        "a frame of \(length) bytes, over the limit of \(limit)"
      case .truncated(let received, let expected):
        "the stream ended after \(received) of \(expected) bytes of a frame"
      case .invalid(let reason): reason
      }
    }
  }

  /// `payload` with its length in front.
  static func frame(_ payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(headerSize + payload.count)
    append(UInt32(truncatingIfNeeded: payload.count), to: &bytes)
    bytes += payload
    return bytes
  }

  /// The payload of `request`.
  static func payload(of request: Request) -> [UInt8] {
    var bytes: [UInt8] = [version]
    append(UInt64(bitPattern: Int64(request.side)), to: &bytes)
    bytes.append(request.fills ? 1 : 0)
    bytes += request.path.bytes
    return bytes
  }

  /// The request in `payload`.
  static func request(from payload: [UInt8]) throws(Malformed) -> Request {
    guard payload.count > 10, payload[0] == version else {
      throw .invalid("a request of \(payload.count) bytes without the version byte")
    }
    let side = Int64(bitPattern: number(UInt64.self, in: payload, at: 1))
    guard payload[9] <= 1 else { throw .invalid("a request whose fill flag is \(payload[9])") }
    let path = Array(payload[10...])
    guard !path.contains(0) else { throw .invalid("a request whose path holds a NUL byte") }
    return Request(path: LibraryPath(bytes: path), side: Int(side), fills: payload[9] == 1)
  }

  /// The payload of a worker's answer.
  static func payload(of reply: Result<AssetImage, PictureFailure>) -> [UInt8] {
    switch reply {
    case .success(let image):
      var bytes: [UInt8] = [0, image.isPNG ? 1 : 0]
      bytes.append(UInt8(sourceCodes.firstIndex(of: image.source) ?? 0))
      append(UInt32(clamping: image.pixelWidth), to: &bytes)
      append(UInt32(clamping: image.pixelHeight), to: &bytes)
      bytes += image.data
      return bytes
    case .failure(let failure):
      var reason = Array(failure.message.utf8)
      if reason.count > maximumReason {
        // Cut on a character boundary: never before a UTF-8 continuation byte.
        var end = maximumReason
        while end > 0, reason[end] & 0xC0 == 0x80 { end -= 1 }
        reason = Array(reason[..<end])
      }
      return [1] + reason
    }
  }

  /// The answer in a worker's reply payload.
  static func reply(from payload: [UInt8]) throws(Malformed) -> Result<AssetImage, PictureFailure> {
    guard let status = payload.first else { throw .invalid("an empty reply") }
    switch status {
    case 0:
      guard payload.count > 11 else {
        throw .invalid("a picture reply of \(payload.count) bytes, with no picture")
      }
      guard payload[1] <= 1 else { throw .invalid("a picture whose PNG flag is \(payload[1])") }
      guard Int(payload[2]) < sourceCodes.count else {
        throw .invalid("a picture from the unknown source \(payload[2])")
      }
      let width = number(UInt32.self, in: payload, at: 3)
      let height = number(UInt32.self, in: payload, at: 7)
      guard (1...UInt32(Int32.max)).contains(width), (1...UInt32(Int32.max)).contains(height)
      else { throw .invalid("a picture of \(width) x \(height) pixels") }
      return .success(
        AssetImage(
          data: Data(payload[11...]), isPNG: payload[1] == 1, pixelWidth: Int(width),
          pixelHeight: Int(height), source: sourceCodes[Int(payload[2])]))
    case 1:
      guard payload.count - 1 <= maximumReason else {
        throw .invalid("a reason of \(payload.count - 1) bytes")
      }
      let reason = String(decoding: payload[1...], as: UTF8.self)
      return .failure(PictureFailure(message: reason))
    default:
      throw .invalid("a reply whose status is \(status)")
    }
  }

  /// Appends `value` little-endian.
  private static func append<Number: FixedWidthInteger>(_ value: Number, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }

  /// The little-endian number at `offset` (the caller has checked the length).
  private static func number<Number: FixedWidthInteger & UnsignedInteger>(
    _: Number.Type, in bytes: [UInt8], at offset: Int
  ) -> Number {
    var value: Number = 0
    for index in (0..<(Number.bitWidth / 8)).reversed() {
      value = value << 8 | Number(bytes[offset + index])
    }
    return value
  }
}

/// Cuts a byte stream into frames: bytes go in as they arrive, whole payloads come out.
///
/// A length over the limit is refused as soon as its 4 bytes are in, before its payload is
/// waited for or stored; at the end of the stream, a frame begun and not finished is
/// ``PictureFrames/Malformed/truncated(received:expected:)``.
struct FrameReader {
  /// The longest payload accepted.
  let limit: Int
  private var buffer: [UInt8] = []
  private var start = 0

  init(limit: Int) {
    self.limit = limit
  }

  /// Adds bytes read from the stream.
  mutating func append(_ bytes: some Collection<UInt8>) {
    if start > 0, start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    buffer += bytes
  }

  /// The next whole payload, or `nil` when more bytes are needed.
  mutating func next() throws(PictureFrames.Malformed) -> [UInt8]? {
    let available = buffer.count - start
    guard available >= PictureFrames.headerSize else { return nil }
    let length =
      UInt32(buffer[start]) | UInt32(buffer[start + 1]) << 8 | UInt32(buffer[start + 2]) << 16
      | UInt32(buffer[start + 3]) << 24
    guard length <= limit else { throw .tooLong(length: length, limit: limit) }
    let end = PictureFrames.headerSize + Int(length)
    guard available >= end else { return nil }
    let payload = Array(buffer[(start + PictureFrames.headerSize)..<(start + end)])
    start += end
    return payload
  }

  /// Whether no byte is waiting beyond the payloads returned.
  var isEmpty: Bool { start == buffer.count }

  /// Checks that the stream, now ended, did not stop inside a frame.
  func finish() throws(PictureFrames.Malformed) {
    let available = buffer.count - start
    guard available > 0 else { return }
    var expected = PictureFrames.headerSize
    if available >= PictureFrames.headerSize {
      let length =
        Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16
        | Int(buffer[start + 3]) << 24
      expected += length
    }
    throw .truncated(received: available, expected: expected)
  }
}
