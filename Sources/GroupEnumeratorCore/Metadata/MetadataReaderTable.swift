/// The one table of which reader reads which format, for the metadata of a listing
/// (`AssetReader`) and for thumbnails (`AssetsLibrary.thumbnail(for:)`) alike.
///
/// A row names the reader of a format's metadata and, where it is another one, the
/// reader its thumbnail is asked of. Two formats are told apart by their first bytes
/// rather than their sniffed format: a BigTIFF (`II+\0`, `MM\0+`), a RAW that is an ISO
/// base media file (Canon CR3), a Canon CRW (`HEAPCCDR`) and a Minolta MRW (`\0MRM`).
///
/// Why some rows differ from the obvious (each is today's behaviour, kept on purpose):
/// - PSD, JPEG 2000, CRW, MRW: our own bounded readers, never gexiv2 — exiv2's own crash
///   files include PSD, JP2 and CRW ones (docs/Robustness.md); their thumbnails are not
///   extracted.
/// - AVIF: the HEIF reader, and for an image sequence's `moov` the QuickTime reader
///   (``AVIFReader``); its thumbnail is the HEIF reader's.
/// - HEIF, PNG, BigTIFF, CR3: our own readers, not gexiv2 — exiv2 0.27.6 reads neither
///   BigTIFF nor CR3, and reads HEIF sizes and PNG raw profiles wrong (README, formats).
/// - BigTIFF's thumbnail is still asked of gexiv2 (which finds none in a file it cannot
///   read); CR3's is its own reader's (the `PRVW` preview, else the `THMB` thumbnail).
/// - Movies are never handed to gexiv2 (exiv2's video readers are unfuzzed; docs/Robustness.md): our box reader reads QuickTime
///   and MP4, our transport stream reader MTS/M2TS; Matroska and Windows Media are listed
///   with a problem and no metadata.
enum MetadataReaderTable {
  /// One row: the reader of the metadata, and the reader of the thumbnail (`nil`: the
  /// format's thumbnails are not read).
  ///
  /// A row is made for one kind of source, so that ``read`` calls the reader's code
  /// specialized for it (the listing's hot path: no dynamic dispatch per byte read).
  struct Row<Source: ByteSource> {
    /// Reads the format's metadata.
    let reader: any MetadataReader.Type
    /// Reads the format's embedded thumbnail, when anything does.
    let thumbnailReader: (any MetadataReader.Type)?
    /// ``reader``'s `read(from:format:)` for this kind of source.
    let read: (Source, MediaFormat) -> MediaMetadata

    /// A row whose reader reads both the metadata and the thumbnail.
    init<Reader: MetadataReader>(_ reader: Reader.Type) {
      self.init(reader, thumbnails: reader)
    }

    /// A row whose thumbnail is read by another reader, or not at all.
    init<Reader: MetadataReader>(_ reader: Reader.Type, thumbnails: (any MetadataReader.Type)?) {
      self.reader = reader
      self.thumbnailReader = thumbnails
      self.read = { source, format in Reader.read(from: source, format: format) }
    }
  }

  /// How many of a file's first bytes ``row(for:source:header:)`` may look at.
  static var headerLength: Int { 16 }

  /// The row for a file whose content sniffed as `format`.
  ///
  /// - Parameters:
  ///   - format: The sniffed format.
  ///   - source: The kind of source the row's reader will read.
  ///   - header: The file's first ``headerLength`` bytes (fewer for a shorter file); only
  ///     evaluated for the formats whose row depends on them (TIFF and RAW).
  static func row<Source: ByteSource>(
    for format: MediaFormat, source: Source.Type, header: () -> [UInt8]
  ) -> Row<Source> {
    switch format {
    case .jpeg: return Row(JPEGMetadataReader.self)
    case .heic: return Row(HEIFMetadataReader.self)
    case .avif: return Row(AVIFReader.self, thumbnails: HEIFMetadataReader.self)
    case .png: return Row(PNGMetadataReader.self)
    case .tiff, .raw:
      let header = header()
      if BigTIFFReader.isBigTIFF(header: header) {
        return Row(BigTIFFReader.self, thumbnails: Exiv2MetadataReader.self)
      }
      if format == .raw, CR3MetadataReader.isISOBaseMedia(header: header) {
        return Row(CR3MetadataReader.self)
      }
      if format == .raw, CRWMetadataReader.isCRW(header: header) {
        return Row(CRWMetadataReader.self, thumbnails: nil)
      }
      if format == .raw, header.starts(with: MRWMetadataReader.magic) {
        return Row(MRWMetadataReader.self, thumbnails: nil)
      }
      return Row(Exiv2MetadataReader.self)
    case .webp, .jpegXL: return Row(Exiv2MetadataReader.self)
    case .quickTime, .mp4, .m4v, .threeGPP: return Row(QuickTimeMetadataReader.self)
    case .gif: return Row(GIFMetadataReader.self, thumbnails: nil)
    case .bmp: return Row(BMPMetadataReader.self, thumbnails: nil)
    case .avi: return Row(AVIMetadataReader.self, thumbnails: nil)
    case .psd: return Row(PSDMetadataReader.self, thumbnails: nil)
    case .jpeg2000: return Row(JPEG2000MetadataReader.self, thumbnails: nil)
    case .mpegTransportStream: return Row(TransportStreamReader.self, thumbnails: nil)
    case .matroska, .windowsMedia: return Row(UnreadVideoReader.self)
    }
  }

  /// Reads a file's metadata with the reader of its row.
  ///
  /// - Parameters:
  ///   - source: The file's bytes.
  ///   - format: The format the content sniffed as.
  static func read<Source: ByteSource>(from source: Source, format: MediaFormat) -> MediaMetadata {
    row(for: format, source: Source.self) { Self.header(of: source) }.read(source, format)
  }

  /// A file's embedded thumbnail, from the thumbnail reader of its row.
  ///
  /// - Returns: The bytes, or `nil` when the row reads no thumbnail or the file has none.
  /// - Throws: An ``AssetProblem`` when the file could not be read.
  static func thumbnail<Source: ByteSource>(from source: Source, format: MediaFormat)
    throws(AssetProblem) -> [UInt8]?
  {
    let row = row(for: format, source: Source.self) { Self.header(of: source) }
    return try row.thumbnailReader?.thumbnail(from: source, format: format)
  }

  private static func header(of source: some ByteSource) -> [UInt8] {
    (try? source.bytes(at: 0, length: headerLength)) ?? []
  }
}

/// Matroska and Windows Media: never handed to gexiv2 (its video code is
/// unsafe here), and not ours to read yet; listed with a problem saying so.
enum UnreadVideoReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    var metadata = MediaMetadata()
    metadata.report(
      AssetProblem(
        .unsupported,
        "The \(format.rawValue) container is not read; the date shown is the file's own time."))
    return metadata
  }
}
