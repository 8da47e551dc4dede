internal import CZlib
import FoundationEssentials

/// A picture cache (``PictureCacheLocation``) resolved for one library: the folder, the
/// library root's URI, and the reading and writing of entries.
///
/// Entries follow the freedesktop.org Thumbnail Managing Standard: `SIZE/NAME.png`, where
/// SIZE is `normal`, `large`, `x-large` or `xx-large` (at most 128, 256, 512, 1024 pixels a
/// side, aspect-fit, never enlarged) and NAME the MD5 of the file's `file://` URI in hex; a
/// PNG whose `tEXt` chunks `Thumb::URI` and `Thumb::MTime` record that URI and the file's
/// modification time in whole seconds (and here `Thumb::Size`, its size in bytes, and
/// `Software`). An entry is used only when it is a well-formed PNG (``ThumbnailPNG``) whose
/// URI is the file's, whose time is the file's current one, and whose size, when it records
/// one, is the file's: anything else is drawn again and replaced. Files that cannot be drawn
/// get an entry in `fail/groupenumerator-VERSION/` recording why, valid by the same rules.
///
/// Entries are written to a temporary file in their folder (mode 0600), then renamed over
/// the entry, so a reader sees the old entry or the new one, never half of one; folders
/// are made with mode 0700.
struct PictureCache: Sendable {
  /// The sizes of the standard, by their longest side.
  enum Size: Int, CaseIterable, Sendable, Comparable {
    case normal = 128
    case large = 256
    case xLarge = 512
    case xxLarge = 1024

    /// The folder of this size's entries.
    var folder: String {
      switch self {
      case .normal: "normal"
      case .large: "large"
      case .xLarge: "x-large"
      case .xxLarge: "xx-large"
      }
    }

    /// The smallest size whose side is at least `side`; `nil` past 1024.
    static func smallest(atLeast side: Int) -> Size? {
      allCases.first { $0.rawValue >= side }
    }

    static func < (left: Size, right: Size) -> Bool { left.rawValue < right.rawValue }
  }

  /// What names a file in the cache: its URI and its state now.
  struct Key: Sendable, Hashable {
    /// The file's `file://` URI, escaped.
    var uri: String
    /// The entry's file name: the MD5 of ``uri`` in hex, `.png`.
    var name: String
    /// The file's modification time, in whole seconds since 1970.
    var modificationTime: Int64
    /// The file's size in bytes.
    var size: Int64
    /// The file's name, for the errors a failure entry gives back.
    var fileName: String
  }

  /// A valid entry: its bytes and what they hold.
  struct Entry: Sendable {
    var bytes: [UInt8]
    var width: Int
    var height: Int
    var size: Size
  }

  /// The folder that holds `normal/`, …, `fail/`.
  let folder: String
  /// Whether this is the desktop's shared cache, which is not evicted from here.
  let isShared: Bool
  /// The most bytes a private cache keeps.
  let maximumBytes: Int
  /// `file://` and the library root's canonical path, escaped, without a trailing `/`.
  let rootURI: String

  /// This program's folder of failure entries, inside `fail/`.
  static let failFolder = "groupenumerator-" + groupEnumeratorVersion
  /// The `Software` text of the entries written here.
  static let software = "GroupEnumerator " + groupEnumeratorVersion
  /// The text keys of a failure entry: the kind of error and its reason.
  static let failureKindKey = "X-GroupEnumerator::Failure"
  static let failureReasonKey = "X-GroupEnumerator::Reason"

  // MARK: Resolving

  /// The environment ``PictureCacheLocation/freedesktop`` is found in, when a test sets
  /// one; `nil` for the process's.
  @TaskLocal static var environmentForTesting: [String: String]?

  /// The folder a location names: `$XDG_CACHE_HOME/thumbnails` (when it is an absolute
  /// path), else `$HOME/.cache/thumbnails`; `nil` for ``PictureCacheLocation/none`` or
  /// when neither variable is an absolute path.
  static func folder(
    for location: PictureCacheLocation, environment: [String: String]
  ) -> (path: String, isShared: Bool, maximumBytes: Int)? {
    switch location {
    case .none: return nil
    case .directory(let url, let maximumBytes):
      let path = url.standardizedFileURL.path
      guard path.hasPrefix("/") else { return nil }
      return (path, false, max(maximumBytes, 0))
    case .freedesktop:
      if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
        return (PathText.appending("thumbnails", to: cache), true, Int.max)
      }
      if let home = environment["HOME"], home.hasPrefix("/") {
        return (PathText.appending(".cache/thumbnails", to: home), true, Int.max)
      }
      return nil
    }
  }

  private struct ResolutionKey: Hashable {
    var folder: String
    var rootPath: String
  }

  /// What was decided for a folder and a library root: the canonical root, or `nil` when
  /// the folder is inside the library (and never used). Deciding reads the mount table,
  /// so it is done once per process for each pair.
  private static let resolutions = SanitizerVisibleMutex<[ResolutionKey: String?]>([:])

  /// The environment ``PictureCacheLocation/freedesktop`` is found in: the process's,
  /// unless a test set another (read in the task, before work moves to another thread).
  static var environment: [String: String] {
    environmentForTesting ?? ProcessInfo.processInfo.environment
  }

  /// The cache `location` names for the library at `root`, in `environment`; `nil` for
  /// none, and when the folder is inside the library.
  static func resolve(
    _ location: PictureCacheLocation, root: LibraryRoot, environment: [String: String]
  ) -> PictureCache? {
    guard let (path, isShared, maximumBytes) = folder(for: location, environment: environment)
    else { return nil }
    let resolutionKey = ResolutionKey(folder: path, rootPath: root.path)
    let known = resolutions.withLock { $0[resolutionKey] }
    let canonicalRoot: String?
    if let known {
      canonicalRoot = known
    } else {
      canonicalRoot = decide(folder: path, root: root)
      resolutions.withLock { $0[resolutionKey] = canonicalRoot }
    }
    guard let canonicalRoot else { return nil }
    let trimmed = canonicalRoot == "/" ? [] : Array(canonicalRoot.utf8)
    return PictureCache(
      folder: path, isShared: isShared, maximumBytes: maximumBytes,
      rootURI: "file://" + escaped(trimmed))
  }

  /// The root's canonical path, or `nil` when `folder` is inside the library (by the
  /// root's device and inode, bind mounts included) or the root cannot be examined.
  private static func decide(folder: String, root: LibraryRoot) -> String? {
    guard let status = try? root.descriptor.status(),
      let resolved = try? FileSystem.canonicalPath(root.path)
    else { return nil }
    let probe = URL(fileURLWithPath: folder).appendingPathComponent("normal/probe.png")
    guard
      IndexStore.libraryFolder(holding: probe, root: status.identity, rootPath: root.path) == nil
    else { return nil }
    return String(decoding: resolved, as: UTF8.self)
  }

  /// The bytes of a path escaped for a `file://` URI as GLib's `g_filename_to_uri` escapes
  /// them (what GNOME Files and Thunar hash): ASCII letters, digits and
  /// `!$&'()*+,-./:=@_~` stay, every other byte becomes `%XX` (upper-case hex).
  static func escaped(_ bytes: [UInt8]) -> String {
    let digits: StaticString = "0123456789ABCDEF"
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count + 16)
    for byte in bytes {
      if isKeptInURI(byte) {
        text.append(byte)
      } else {
        let hex = digits.utf8Start
        text.append(UInt8(ascii: "%"))
        text.append(hex[Int(byte >> 4)])
        text.append(hex[Int(byte & 0x0f)])
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Whether `g_filename_to_uri` leaves `byte` as it is: an ASCII letter or digit, or one
  /// of `!$&'()*+,-./:=@_~`.
  private static func isKeptInURI(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "$"),
      UInt8(ascii: "&")...UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "="),
      UInt8(ascii: "@"), UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default: false
    }
  }

  // MARK: Keys and entries

  /// The key of the file at `path` beneath `root` as it is now; `nil` when it is not a
  /// regular file there.
  func key(for path: LibraryPath, root: LibraryRoot) -> Key? {
    key(for: path, status: BeneathOpener.status(in: root.descriptor, relativePath: path.bytes))
  }

  /// The key of the file at `path` whose status (not followed if a link) is `status`;
  /// `nil` when it is not a regular file.
  func key(for path: LibraryPath, status: FileStatus?) -> Key? {
    guard let status, status.kind == .regular else { return nil }
    return key(for: path, modificationDate: status.modificationDate, size: status.size)
  }

  /// The key of the regular file at `path` whose modification time and size are those
  /// given (as a status of it read them).
  func key(for path: LibraryPath, modificationDate: Date, size: Int64) -> Key? {
    let seconds = modificationDate.timeIntervalSince1970.rounded(.down)
    guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
    let uri = rootURI + "/" + Self.escaped(path.bytes)
    return Key(
      uri: uri, name: MD5.hex(Array(uri.utf8)) + ".png", modificationTime: Int64(seconds),
      size: size, fileName: path.lastComponent)
  }

  /// The valid entry of `key` at `size`, if there is one (`checksImageData`: see
  /// ``ThumbnailPNG/read(_:checksImageData:)``). An entry larger than its folder's size
  /// breaks the standard and is not used (nor decoded: a huge one could be a bomb).
  func entry(_ key: Key, size: Size, checksImageData: Bool = true) -> Entry? {
    guard let (entry, file) = openEntry(key, size: size, checksImageData: checksImageData)
    else { return nil }
    file.close()
    return entry
  }

  /// The valid entry of `key` at `size`, as ``entry(_:size:checksImageData:)`` finds it,
  /// and the file it was read from, still open: the caller closes it.
  func openEntry(_ key: Key, size: Size, checksImageData: Bool) -> (Entry, FileDescriptor)? {
    guard let (bytes, file) = Self.readFile(folder + "/" + size.folder + "/" + key.name)
    else { return nil }
    guard let contents = try? ThumbnailPNG.read(bytes, checksImageData: checksImageData),
      Self.isValid(contents, for: key), contents.width <= size.rawValue,
      contents.height <= size.rawValue
    else {
      file.close()
      return nil
    }
    return (Entry(bytes: bytes, width: contents.width, height: contents.height, size: size), file)
  }

  /// The error a valid failure entry of `key` records, if there is one.
  func failure(_ key: Key) -> ImageRequestError? {
    guard let (bytes, file) = Self.readFile(folder + "/fail/" + Self.failFolder + "/" + key.name)
    else { return nil }
    file.close()
    guard let contents = try? ThumbnailPNG.read(bytes), Self.isValid(contents, for: key),
      let kind = contents.text[Self.failureKindKey]
    else { return nil }
    let reason = contents.text[Self.failureReasonKey] ?? "it could not be drawn before"
    switch kind {
    case "noDecoder": return .noDecoder(name: key.fileName, reason: reason)
    case "tooLarge": return .tooLarge(name: key.fileName, reason: reason)
    case "undecodable": return .undecodable(name: key.fileName, reason: reason)
    default: return nil
    }
  }

  /// Whether an entry's text names the file `key` as it is now.
  static func isValid(_ contents: ThumbnailPNG.Contents, for key: Key) -> Bool {
    guard contents.text["Thumb::URI"] == key.uri,
      let time = contents.text["Thumb::MTime"].flatMap({ Int64($0) }),
      time == key.modificationTime
    else { return false }
    if let size = contents.text["Thumb::Size"] {
      return Int64(size) == key.size
    }
    return true
  }

  /// Stores `png` (a PNG libvips encoded) as the entry of `key` at `size`; a failure to
  /// write leaves the cache as it was.
  func store(_ png: [UInt8], key: Key, size: Size) {
    guard let bytes = ThumbnailPNG.inserting(text: text(for: key), into: png) else { return }
    write(bytes, folder: folder + "/" + size.folder, name: key.name)
  }

  /// Records that the file `key` cannot be drawn, and why, in this program's failure
  /// folder.
  func storeFailure(_ error: ImageRequestError, key: Key) {
    let kind: String
    let reason: String
    switch error {
    case .noDecoder(_, let why): (kind, reason) = ("noDecoder", why)
    case .tooLarge(_, let why): (kind, reason) = ("tooLarge", why)
    case .undecodable(_, let why): (kind, reason) = ("undecodable", why)
    default: return
    }
    let printable = String(
      String.UnicodeScalarView(
        reason.unicodeScalars.prefix(300).map { (0x20..<0x7F).contains($0.value) ? $0 : "?" }))
    let text =
      text(for: key) + [
        (key: Self.failureKindKey, value: kind), (key: Self.failureReasonKey, value: printable),
      ]
    guard let bytes = ThumbnailPNG.inserting(text: text, into: Self.onePixelPNG) else { return }
    write(bytes, folder: folder + "/fail/" + Self.failFolder, name: key.name)
  }

  private func text(for key: Key) -> [(key: String, value: String)] {
    [
      ("Thumb::URI", key.uri), ("Thumb::MTime", String(key.modificationTime)),
      ("Thumb::Size", String(key.size)), ("Software", Self.software),
    ]
  }

  /// A 1 × 1 grey PNG: the picture of a failure entry.
  static let onePixelPNG: [UInt8] = {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let body = Array(type.utf8) + data
      let crc = body.withUnsafeBufferPointer { buffer in
        UInt32(truncatingIfNeeded: crc32(crc32(0, nil, 0), buffer.baseAddress, uInt(buffer.count)))
      }
      let length = UInt32(data.count)
      return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> UInt32($0)) } + body
        + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) }
    }
    // A zlib stream of one stored block holding the row: filter byte 0, one grey sample.
    let row: [UInt8] = [0, 0x80]
    var adler: UInt32 = 1
    row.withUnsafeBufferPointer { buffer in
      adler = UInt32(truncatingIfNeeded: adler32(1, buffer.baseAddress, uInt(buffer.count)))
    }
    let deflated: [UInt8] =
      [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF] + row
      + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> UInt32($0)) }
    let header: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]
    return ThumbnailPNG.signature + chunk("IHDR", header) + chunk("IDAT", deflated)
      + chunk("IEND", [])
  }()
}
