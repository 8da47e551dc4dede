/// A reader of one family of formats: what the engine needs from a file's bytes, and the
/// JPEG thumbnail embedded in it.
///
/// Every format reader conforms, and ``MetadataReaderTable`` says which reader reads
/// which format. Adding a format is one reader file and one row of that table.
protocol MetadataReader {
  /// Reads a file whose content sniffed as `format`. Never throws and never traps: what
  /// cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameters:
  ///   - source: The file's bytes.
  ///   - format: The format the content sniffed as (a reader may read several).
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata

  /// The JPEG thumbnail or preview embedded in a file, byte for byte.
  ///
  /// - Returns: The bytes, or `nil` when the file has none (the default: the reader
  ///   extracts none).
  /// - Throws: An ``AssetProblem`` when the file could not be read at all.
  static func thumbnail(from source: some ByteSource, format: MediaFormat) throws(AssetProblem)
    -> [UInt8]?
}

extension MetadataReader {
  /// The metadata `body` fills in; a read it could not make (the ``AssetProblem`` it
  /// throws) ends the walk and becomes a problem, beside what was read before it.
  static func collecting(
    _ body: (inout MediaMetadata) throws(AssetProblem) -> Void
  ) -> MediaMetadata {
    var metadata = MediaMetadata()
    do {
      try body(&metadata)
    } catch {
      metadata.report(error)
    }
    return metadata
  }

  static func thumbnail(from source: some ByteSource, format: MediaFormat) throws(AssetProblem)
    -> [UInt8]?
  { nil }
}
