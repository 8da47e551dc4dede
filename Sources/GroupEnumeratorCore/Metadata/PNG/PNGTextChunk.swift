/// The keyword and text of a PNG `tEXt`, `zTXt` or `iTXt` chunk.
///
/// - `tEXt`: keyword, NUL, text.
/// - `zTXt`: keyword, NUL, compression method (0, zlib), the compressed text.
/// - `iTXt`: keyword, NUL, compression flag, compression method, language tag, NUL,
///   translated keyword, NUL, the text (compressed with zlib when the flag is 1).
struct PNGTextChunk {
  /// The longest keyword PNG allows: 1 to 79 bytes.
  static let maximumKeywordLength = 79

  /// The keyword, without its NUL.
  var keyword: [UInt8]
  /// The text, inflated when the chunk stores it compressed.
  var text: [UInt8]

  /// The keyword at the start of a text chunk's data, from its first bytes.
  ///
  /// - Parameter prefix: At least the first ``maximumKeywordLength`` + 1 bytes of the
  ///   data (or all of it).
  /// - Returns: `nil` when no NUL ends a keyword of 1 to 79 bytes.
  static func keyword(in prefix: [UInt8]) -> [UInt8]? {
    guard let end = prefix.prefix(maximumKeywordLength + 1).firstIndex(of: 0), end > 0 else {
      return nil
    }
    return Array(prefix[..<end])
  }

  /// Parses a text chunk's data.
  ///
  /// - Parameters:
  ///   - data: The chunk's data.
  ///   - kind: `.text`, `.compressedText` or `.internationalText`.
  ///   - limit: The most bytes the text may inflate to.
  /// - Throws: An ``AssetProblem`` when the layout is wrong, the compression method is
  ///   not 0, or the compressed text does not inflate within `limit`.
  init(data: [UInt8], kind: PNGChunkHeader.Kind, limit: Int) throws(AssetProblem) {
    let name = Self.name(of: kind)
    guard let keyword = Self.keyword(in: data) else {
      throw AssetProblem(.malformed, "A PNG \(name) chunk has no valid keyword.")
    }
    self.keyword = keyword
    let afterKeyword = keyword.count + 1
    switch kind {
    case .compressedText:
      guard afterKeyword < data.count, data[afterKeyword] == 0 else {
        throw AssetProblem(
          .malformed, "A PNG zTXt chunk has no compression method 0 (zlib) after its keyword.")
      }
      text = try Self.inflate(Array(data[(afterKeyword + 1)...]), name: name, limit: limit)
    case .internationalText:
      guard afterKeyword + 2 <= data.count,
        let languageEnd = data[(afterKeyword + 2)...].firstIndex(of: 0),
        let translatedEnd = data[(languageEnd + 1)...].firstIndex(of: 0)
      else {
        throw AssetProblem(.malformed, "A PNG iTXt chunk's header fields are incomplete.")
      }
      let isCompressed = data[afterKeyword]
      let method = data[afterKeyword + 1]
      let body = Array(data[(translatedEnd + 1)...])
      switch (isCompressed, method) {
      case (0, _): text = body
      case (1, 0): text = try Self.inflate(body, name: name, limit: limit)
      default:
        throw AssetProblem(
          .malformed,
          "A PNG iTXt chunk has compression flag \(isCompressed) and method \(method).")
      }
      guard text.count <= limit else {
        throw AssetProblem(
          .unsupported, "A PNG iTXt chunk's text is over \(limit) bytes; it was not read.")
      }
    default:
      text = Array(data[afterKeyword...])
    }
  }

  private static func inflate(_ stream: [UInt8], name: String, limit: Int) throws(AssetProblem)
    -> [UInt8]
  {
    do {
      return try ZlibInflater.inflate(stream, limit: limit)
    } catch {
      switch error {
      case .tooLarge(let limit):
        throw AssetProblem(
          .unsupported,
          "A PNG \(name) chunk inflates to more than \(limit) bytes; it was not read.")
      case .truncated:
        throw AssetProblem(.malformed, "A PNG \(name) chunk's compressed text is cut short.")
      case .corrupt(let message):
        throw AssetProblem(
          .malformed, "A PNG \(name) chunk's compressed text is corrupt (\(message)).")
      case .unavailable(let status):
        throw AssetProblem(.unreadable, "zlib could not start (status \(status)).")
      }
    }
  }

  private static func name(of kind: PNGChunkHeader.Kind) -> String {
    switch kind {
    case .compressedText: "zTXt"
    case .internationalText: "iTXt"
    default: "tEXt"
    }
  }
}
