internal import CGExiv2Shim
import Synchronization

#if canImport(Glibc)
  internal import Glibc
#endif

/// The one door to gexiv2: initializes it once, and runs every call behind one lock.
///
/// exiv2's EXIF and IPTC code is reentrant but its XMP
/// parser's `XmpParser::initialize` and `XmpProperties::registerNs` are not thread-safe,
/// and gexiv2 parses XMP while opening a file. So gexiv2 is initialized exactly once
/// (``initialization``, a lazily and atomically initialized `static let`) before any
/// image is opened, and images are only opened, read and closed inside
/// ``withImage(bytes:_:)``, which holds ``lock``.
enum Exiv2Session {
  /// Serialises every gexiv2 call of the process.
  private static let lock = Mutex<Void>(())

  /// The outcome of loading gexiv2 (the shim opens it with dlopen) and of
  /// `gexiv2_initialize`, run once on first use: a process that reads no file gexiv2 is for
  /// never loads it.
  private static let initialization: String? = {
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_initialize(&message)
    let text = takeMessage(&message)
    return status == CGExiv2Shim_ok ? nil : (text ?? "gexiv2_initialize failed")
  }()

  /// Parses `bytes` with gexiv2 and runs `body` on the result, holding the lock.
  ///
  /// - Parameters:
  ///   - bytes: A whole file's bytes.
  ///   - body: Reads from the image; the image must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: ``Exiv2Failure`` when gexiv2 cannot be initialized or cannot parse the bytes.
  static func withImage<Result: Sendable>(
    bytes: [UInt8], _ body: (borrowing Exiv2Image) -> Result
  ) throws(Exiv2Failure) -> Result {
    if let failure = initialization { throw Exiv2Failure(message: failure, isUnavailable: true) }
    return try lock.withLock { _ throws(Exiv2Failure) -> Result in
      try parse(bytes, body)
    }
  }

  /// Why ``withImage(loading:_:)`` failed.
  enum LoadingFailure: Error {
    /// The bytes could not be read.
    case unreadable(AssetProblem)
    /// gexiv2 could not be initialized or could not parse the bytes.
    case exiv2(Exiv2Failure)
  }

  /// Loads a file's bytes, parses them with gexiv2 and runs `body` on the result, all
  /// holding the lock: since gexiv2's calls are serialised anyway, loading under the lock
  /// means at most one input buffer (of at most
  /// ``Exiv2MetadataReader/maximumInputLength`` bytes) is alive in the process at once,
  /// however many files are read in parallel.
  ///
  /// - Parameters:
  ///   - load: Reads the bytes to parse.
  ///   - body: Reads from the image; the image must not escape the call.
  /// - Returns: What `body` returns.
  /// - Throws: ``LoadingFailure``.
  static func withImage<Result: Sendable>(
    loading load: () throws(AssetProblem) -> [UInt8], _ body: (borrowing Exiv2Image) -> Result
  ) throws(LoadingFailure) -> Result {
    if let failure = initialization {
      throw .exiv2(Exiv2Failure(message: failure, isUnavailable: true))
    }
    return try lock.withLock { _ throws(LoadingFailure) -> Result in
      let bytes: [UInt8]
      do throws(AssetProblem) {
        bytes = try load()
      } catch {
        throw .unreadable(error)
      }
      do throws(Exiv2Failure) {
        return try parse(bytes, body)
      } catch {
        throw .exiv2(error)
      }
    }
  }

  /// Opens `bytes` with gexiv2 and runs `body` on the image; the caller holds the lock.
  private static func parse<Result: Sendable>(
    _ bytes: [UInt8], _ body: (borrowing Exiv2Image) -> Result
  ) throws(Exiv2Failure) -> Result {
    var pointer: OpaquePointer?
    var message: UnsafeMutablePointer<CChar>?
    let status = bytes.withUnsafeBufferPointer { buffer in
      CGExiv2Shim_open(buffer.baseAddress, buffer.count, &pointer, &message)
    }
    let text = takeMessage(&message)
    guard status == CGExiv2Shim_ok, let pointer else {
      CGExiv2Shim_close(pointer)
      throw Exiv2Failure(message: text ?? "gexiv2 could not read the data")
    }
    let image = Exiv2Image(pointer: pointer)
    return body(image)
  }

  /// The text of a message the shim returned, which is then freed.
  static func takeMessage(_ message: inout UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer = message else { return nil }
    defer {
      CGExiv2Shim_freeString(pointer)
      message = nil
    }
    return String(
      decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
  }
}

/// Why gexiv2 failed, in exiv2's words.
struct Exiv2Failure: Error, Equatable {
  /// exiv2's or gexiv2's message, or the loader's.
  let message: String
  /// Whether gexiv2 could not be loaded or initialized at all (the file was not looked at).
  var isUnavailable = false
}

/// One image opened by gexiv2, valid only inside ``Exiv2Session/withImage(bytes:_:)``.
///
/// Closes the image when it goes away; it cannot be copied, so it is closed exactly once.
struct Exiv2Image: ~Copyable {
  private let pointer: OpaquePointer

  fileprivate init(pointer: OpaquePointer) { self.pointer = pointer }

  deinit { CGExiv2Shim_close(pointer) }

  /// One component of a rational value, as stored.
  typealias Fraction = (numerator: Int64, denominator: Int64)

  /// What a tag lookup found.
  enum Lookup<Value> {
    /// The tag's value.
    case value(Value)
    /// The file has no such tag.
    case absent
    /// The value is not of the kind asked for.
    case wrongShape
    /// gexiv2 failed; the message says why.
    case failed(String)
  }

  /// The value of `key` as exiv2 writes it as text.
  func string(_ key: String) -> Lookup<[UInt8]> {
    var value: UnsafeMutablePointer<CChar>?
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_tagString(pointer, key, &value, &message)
    let text = Exiv2Session.takeMessage(&message)
    defer { CGExiv2Shim_freeString(value) }
    guard status == CGExiv2Shim_ok, let value else { return lookup(status, text) }
    return .value(Array(UnsafeRawBufferPointer(start: value, count: strlen(value))))
  }

  /// The stored bytes of `key`'s value.
  func bytes(_ key: String) -> Lookup<[UInt8]> {
    var value: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_tagBytes(pointer, key, &value, &length, &message)
    let text = Exiv2Session.takeMessage(&message)
    defer { CGExiv2Shim_freeBytes(value) }
    guard status == CGExiv2Shim_ok, let value else { return lookup(status, text) }
    return .value(Array(UnsafeBufferPointer(start: value, count: length)))
  }

  /// The numerators and denominators of a `RATIONAL` or `SRATIONAL` value, as stored.
  ///
  /// - Parameter limit: How many components to return at most.
  func rationals(_ key: String, limit: Int = 8) -> Lookup<[Fraction]> {
    var numerators = [Int64](repeating: 0, count: limit)
    var denominators = [Int64](repeating: 0, count: limit)
    var count = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = numerators.withUnsafeMutableBufferPointer { top in
      denominators.withUnsafeMutableBufferPointer { bottom in
        CGExiv2Shim_tagRationals(
          pointer, key, top.baseAddress, bottom.baseAddress, limit, &count, &message)
      }
    }
    let text = Exiv2Session.takeMessage(&message)
    guard status == CGExiv2Shim_ok else { return lookup(status, text) }
    guard count <= limit else { return .wrongShape }
    return .value((0..<count).map { (numerators[$0], denominators[$0]) })
  }

  /// The pixel size exiv2 read from the image structure, if any.
  var pixelSize: (width: Int, height: Int)? {
    var width: Int32 = 0
    var height: Int32 = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_pixelSize(pointer, &width, &height, &message)
    _ = Exiv2Session.takeMessage(&message)
    return status == CGExiv2Shim_ok ? (Int(width), Int(height)) : nil
  }

  /// gexiv2's orientation (EXIF, else XMP `tiff:Orientation`), 1…8, if any.
  var orientation: Int? {
    var value: Int32 = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_orientation(pointer, &value, &message)
    _ = Exiv2Session.takeMessage(&message)
    return status == CGExiv2Shim_ok ? Int(value) : nil
  }

  /// Whether the EXIF data holds a thumbnail (IFD1).
  var hasThumbnail: Bool {
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_hasThumbnail(pointer, &message)
    _ = Exiv2Session.takeMessage(&message)
    return status == CGExiv2Shim_ok
  }

  /// Whether exiv2's preview manager lists an embedded JPEG preview (for a camera RAW:
  /// its previews and the EXIF thumbnail; nothing is loaded to answer).
  var hasJPEGPreview: Bool {
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_hasJPEGPreview(pointer, &message)
    _ = Exiv2Session.takeMessage(&message)
    return status == CGExiv2Shim_ok
  }

  /// The largest embedded JPEG preview (most pixels, then most bytes), byte for byte, with
  /// the size exiv2 reports for it (0 when unknown).
  var largestJPEGPreview: Lookup<(bytes: [UInt8], width: Int, height: Int)> {
    var bytes: UnsafeMutablePointer<UInt8>?
    var length = 0
    var width: UInt32 = 0
    var height: UInt32 = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_largestJPEGPreview(
      pointer, &bytes, &length, &width, &height, &message)
    let text = Exiv2Session.takeMessage(&message)
    defer { CGExiv2Shim_freeBytes(bytes) }
    guard status == CGExiv2Shim_ok, let bytes else { return lookup(status, text) }
    return .value(
      (Array(UnsafeBufferPointer(start: bytes, count: length)), Int(width), Int(height)))
  }

  /// The EXIF thumbnail (IFD1), byte for byte, whatever it holds.
  var exifThumbnail: Lookup<[UInt8]> {
    var bytes: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_exifThumbnail(pointer, &bytes, &length, &message)
    let text = Exiv2Session.takeMessage(&message)
    defer { CGExiv2Shim_freeBytes(bytes) }
    guard status == CGExiv2Shim_ok, let bytes else { return lookup(status, text) }
    return .value(Array(UnsafeBufferPointer(start: bytes, count: length)))
  }

  /// The XMP packet exiv2 read from the file (TIFF tag 700, WebP's `XMP ` chunk, …),
  /// byte for byte up to its first NUL.
  var xmpPacket: Lookup<[UInt8]> {
    var value: UnsafeMutablePointer<CChar>?
    var message: UnsafeMutablePointer<CChar>?
    let status = CGExiv2Shim_xmpPacket(pointer, &value, &message)
    let text = Exiv2Session.takeMessage(&message)
    defer { CGExiv2Shim_freeString(value) }
    guard status == CGExiv2Shim_ok, let value else { return lookup(status, text) }
    return .value(Array(UnsafeRawBufferPointer(start: value, count: strlen(value))))
  }

  private func lookup<Value>(_ status: Int32, _ message: String?) -> Lookup<Value> {
    switch status {
    case CGExiv2Shim_absent: .absent
    case CGExiv2Shim_wrongShape: .wrongShape
    default: .failed(message ?? "gexiv2 failed")
    }
  }
}
