import FoundationEssentials
import Glibc

/// A path inside a photo library, relative to its root, kept as the raw bytes the file
/// system gave us.
///
/// Linux file names are bytes, not text: two names that differ only in Unicode
/// normalisation are two files, and a name need not be valid UTF-8 at all. `LibraryPath`
/// therefore compares, hashes and sorts by bytes, and offers a text form only for display
/// (``description``) and an escaped form that round-trips (``escaped``).
public struct LibraryPath: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The path's bytes, components separated by `/`, without a leading or trailing `/`.
  /// Empty for the library root itself.
  public let bytes: [UInt8]

  /// Creates a path from raw bytes.
  ///
  /// - Parameter bytes: Components separated by `/`, relative to the library root.
  public init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Creates a path from text, stored as its UTF-8 bytes (no normalisation is applied).
  ///
  /// - Parameter string: Components separated by `/`, relative to the library root.
  public init(_ string: String) {
    self.bytes = Array(string.utf8)
  }

  /// The library root.
  public static let root = LibraryPath(bytes: [])

  /// Whether this is the library root.
  public var isRoot: Bool { bytes.isEmpty }

  /// The path's components, as byte arrays.
  public var componentBytes: [[UInt8]] {
    bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
  }

  /// The last component's bytes (the file name), or empty for the root.
  public var lastComponentBytes: [UInt8] {
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
    return Array(bytes[(slash + 1)...])
  }

  /// The last component as display text (invalid UTF-8 escaped as in ``escaped``).
  public var lastComponent: String { LibraryPath.escape(lastComponentBytes) }

  /// The last component's extension as written (`JPG`, `heic`), escaped like
  /// ``lastComponent``; empty when the name has no dot after its first byte.
  public var fileExtension: String {
    let name = lastComponentBytes
    guard let start = LibraryPath.extensionStart(inName: name) else { return "" }
    return LibraryPath.escape(Array(name[start...]))
  }

  /// Where the extension of the file name `name` starts: just after its last `.`, when
  /// that dot is not the name's first byte (`.jpg` is a hidden file's name, not an
  /// extension); `nil` when the name has none. An extension may be empty (`IMG_0001.`).
  ///
  /// The one rule for what a file's extension is: the asset URL, the `--ext` selection
  /// and the reader chosen by name all find it here, and compare it as
  /// ``lowercasedASCII(_:)`` makes it.
  @_spi(Demo) @inlinable
  public static func extensionStart<Name: BidirectionalCollection<UInt8>>(
    inName name: Name
  ) -> Name.Index? {
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else {
      return nil
    }
    return name.index(after: dot)
  }

  /// `bytes` with the ASCII capitals made small letters and every other byte kept: how
  /// extensions compare (`JPG` is `jpg`, `É` stays `É`).
  package static func lowercasedASCII(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
  }

  /// The path without its last component (the root for a top-level name).
  public var parent: LibraryPath {
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return .root }
    return LibraryPath(bytes: Array(bytes[..<slash]))
  }

  /// The path with `component` appended.
  ///
  /// - Parameter component: One file name's bytes (no `/`).
  /// - Returns: The longer path.
  public func appending(_ component: [UInt8]) -> LibraryPath {
    if bytes.isEmpty { return LibraryPath(bytes: component) }
    // One allocation (the walk makes every file's path here).
    var joined: [UInt8] = []
    joined.reserveCapacity(bytes.count + 1 + component.count)
    joined += bytes
    joined.append(UInt8(ascii: "/"))
    joined += component
    return LibraryPath(bytes: joined)
  }

  /// Whether the path's bytes are valid UTF-8.
  public var isValidUTF8: Bool { String(validUTF8: bytes) != nil }

  /// The path as text that maps back to the same bytes.
  ///
  /// Valid UTF-8 is kept as is, except that `%` becomes `%25`; every byte that is not
  /// part of valid UTF-8 becomes `%XX` (two upper-case hex digits). ``init(escaped:)``
  /// reverses it.
  public var escaped: String { LibraryPath.escape(bytes) }

  /// Reverses ``escaped``.
  ///
  /// - Parameter escaped: Text made by ``escaped``.
  /// - Returns: `nil` when a `%` is not followed by two hex digits.
  public init?(escaped: String) {
    var out: [UInt8] = []
    out.reserveCapacity(escaped.utf8.count)
    var iterator = Array(escaped.utf8).makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        out.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(LibraryPath.hexValue),
        let low = iterator.next().flatMap(LibraryPath.hexValue)
      else { return nil }
      out.append(high << 4 | low)
    }
    self.bytes = out
  }

  /// The path for display: the same as ``escaped``.
  public var description: String { escaped }

  /// Orders paths by their bytes, so the order never depends on the locale or on
  /// Unicode normalisation.
  ///
  /// `memcmp` compares unsigned bytes, as the order wants, many at a step: the paths of
  /// one folder share a long prefix, and the walk sorts every folder's files.
  public static func < (lhs: LibraryPath, rhs: LibraryPath) -> Bool {
    lhs.bytes.withUnsafeBytes { left in
      rhs.bytes.withUnsafeBytes { right in
        let common = min(left.count, right.count)
        if common > 0, let leftStart = left.baseAddress, let rightStart = right.baseAddress {
          let order = memcmp(leftStart, rightStart, common)
          if order != 0 { return order < 0 }
        }
        return left.count < right.count
      }
    }
  }

  /// Hashes the bytes in one call (the same bytes give the same hash, as `==` needs),
  /// rather than byte by byte: paths key the walk's, the plan's and the index's tables.
  public func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }

  static func escape(_ bytes: [UInt8]) -> String {
    // The usual case: valid UTF-8 without `%` escapes to itself. (Valid as a whole means
    // the loop below would find only valid sequences, so it gives the same text.)
    if !bytes.contains(UInt8(ascii: "%")), let text = String(validUTF8: bytes) {
      return text
    }
    var result = ""
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let length = LibraryPath.validSequenceLength(bytes, at: index)
      if length == 0 {
        result += "%" + LibraryPath.hex(bytes[index])
        index += 1
      } else if bytes[index] == UInt8(ascii: "%") {
        result += "%25"
        index += 1
      } else {
        result += String(decoding: bytes[index..<(index + length)], as: UTF8.self)
        index += length
      }
    }
    return result
  }

  /// The length of the valid UTF-8 sequence starting at `index`, or 0 when none does.
  private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
    let lead = bytes[index]
    let length: Int
    switch lead {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return 0
    }
    guard index + length <= bytes.count else { return 0 }
    return String(validating: bytes[index..<(index + length)], as: UTF8.self) == nil ? 0 : length
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    default: return nil
    }
  }
}
