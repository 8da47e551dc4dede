/// Reads a BigTIFF file's IFD0 and its EXIF and GPS sub-IFDs (exiv2 0.27.6 does not
/// support BigTIFF).
///
/// BigTIFF (libtiff's extension) is classic TIFF
/// with 64-bit offsets:
/// - a 16-byte header: `II` or `MM`, version 43, the offset size 8, a reserved 0, then the
///   8-byte offset of IFD0;
/// - IFDs of an 8-byte entry count, 20-byte entries (tag u16, type u16, count u64, and an
///   8-byte field holding the value when it fits in 8 bytes, else its offset), then an
///   8-byte next-IFD offset;
/// - the new types `LONG8` (16), `SLONG8` (17) and `IFD8` (18), each 8 bytes.
///
/// The one ``TIFFDirectoryWalker`` reads it with the ``TIFFLayout/big`` layout; the tags are
/// collected into an ``EXIFTagTable`` (`LONG8`/`SLONG8` as `LONG`/`SLONG` when they fit) and handed
/// to ``EXIFInterpreter``, as for every other format. The size is IFD0's `ImageWidth` ×
/// `ImageLength` (`SHORT`, `LONG` or `LONG8`), which is what exiftool's `Composite:ImageSize`
/// reports.
///
/// How it stays safe: the file is read in small pieces, never whole (a BigTIFF is typically more
/// than 4 GB); at most ``TIFFDirectoryWalker/maximumDirectories`` IFDs are read, each once (a
/// pointer back to an IFD already read is a fault, not a loop); at most
/// ``TIFFLayout/maximumEntries`` entries per IFD and, per value, at most
/// ``TIFFValue/maximumUndefinedLength`` bytes; every offset sum is overflow-checked and
/// every range checked against the file before it is read.
enum BigTIFFReader {
  /// Whether a file starts with a BigTIFF header's byte order and version (`II+\0` or
  /// `MM\0+`).
  ///
  /// - Parameter header: The file's first bytes (4 are enough).
  static func isBigTIFF(header: [UInt8]) -> Bool {
    header.starts(with: [0x49, 0x49, 0x2B, 0x00]) || header.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
  }

  /// Reads everything the engine needs from a BigTIFF. Never throws and never traps: what
  /// cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size and orientation, with the problems found.
  static func read<Source: ByteSource>(from source: Source) -> MediaMetadata {
    var metadata = MediaMetadata()
    var walker: TIFFDirectoryWalker<Source>
    do {
      walker = try TIFFDirectoryWalker(source: source, layout: .big)
    } catch {
      metadata.report(error.assetProblem)
      return metadata
    }
    let table = walker.read()
    let faults = walker.faults.map(\.description).joined(separator: " ")
    if (table.entryCounts[.ifd0] ?? 0) == 0 {
      metadata.report(
        .init(.malformed, "The BigTIFF file's IFD0 could not be read: " + faults))
    } else if !walker.faults.isEmpty {
      metadata.report(.init(.malformed, "The BigTIFF structure is damaged: " + faults))
    }
    EXIFInterpreter.apply(table, to: &metadata, sizeFromIFD0: true)
    return metadata
  }
}

extension BigTIFFReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }
}
