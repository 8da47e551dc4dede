import FoundationEssentials
@_spi(Demo) import GroupEnumeratorCore

/// An asset's URL, path and name as JSON strings, written without making a `String` when
/// the path needs no escaping (the usual case: printable ASCII without `%`, `"` or `\\`,
/// whose escaped form is its bytes) and its extension is letters and digits (which the
/// URL keeps as they are); else made as ``Asset/urlString``, ``LibraryPath/escaped`` and
/// ``Asset/name`` make them. Either way the bytes written are the same.
struct AssetText {
  private enum Form {
    /// The path's bytes, where its name starts and where its extension starts (after the
    /// dot; the end when there is none).
    case plain(bytes: [UInt8], name: Int, fileExtension: Int)
    case text(url: String, path: String, name: String)
  }

  private let form: Form
  private let id: UUID

  init(_ asset: Asset) {
    id = asset.id
    let bytes = asset.path.bytes
    if let form = AssetText.plainForm(of: bytes) {
      self.form = form
    } else {
      form = .text(url: asset.urlString, path: asset.path.escaped, name: asset.name)
    }
  }

  /// The plain form of a path, or `nil` when one of its bytes needs escaping or its
  /// extension is not letters and digits.
  private static func plainForm(of bytes: [UInt8]) -> Form? {
    bytes.withUnsafeBufferPointer { path -> Form? in
      var name = 0
      for (index, byte) in path.enumerated() {
        guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "\""),
          byte != UInt8(ascii: "\\")
        else { return nil }
        if byte == UInt8(ascii: "/") { name = index + 1 }
      }
      let fileExtension =
        LibraryPath.extensionStart(inName: path[name...]) ?? path.count
      for byte in path[fileExtension...] {
        let isAlphanumeric =
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        guard isAlphanumeric else { return nil }
      }
      return .plain(bytes: bytes, name: name, fileExtension: fileExtension)
    }
  }

  /// `"assets-library://asset/asset.EXT?id=UUID&ext=EXT"`.
  func writeURL(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, _, let fileExtension):
      bytes.withUnsafeBufferPointer { path in
        json.string(
          assetURL: id, fileExtension: UnsafeBufferPointer(rebasing: path[fileExtension...]))
      }
    case .text(let url, _, _): json.string(url)
    }
  }

  /// The path, escaped (``LibraryPath/escaped``).
  func writePath(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, _, _):
      bytes.withUnsafeBufferPointer { json.string(plain: $0) }
    case .text(_, let path, _): json.string(path)
    }
  }

  /// The name, escaped (``Asset/name``).
  func writeName(to json: inout JSONWriter) {
    switch form {
    case .plain(let bytes, let name, _):
      bytes.withUnsafeBufferPointer {
        json.string(plain: UnsafeBufferPointer(rebasing: $0[name...]))
      }
    case .text(_, _, let name): json.string(name)
    }
  }
}
