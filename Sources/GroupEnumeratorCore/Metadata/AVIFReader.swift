/// Reads an AVIF file: its items with the HEIF reader and, for an image sequence (brand
/// `avis`), the top-level `moov` box an MP4 would have with the QuickTime reader.
///
/// Only the movie header's creation time is taken from the movie, as
/// ``MediaMetadata/movieHeaderCreationDate`` (a UTC instant, `quicktime:mvhd`): it dates the
/// photo only when its EXIF and XMP do not. The movie's problems are reported, named as the
/// sequence's. A sequence without a `meta` box, which has no items to read, is read as a
/// movie alone. A still AVIF (no `moov`) is read by the HEIF reader alone.
enum AVIFReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    guard hasTopLevelMovie(in: source) else { return HEIFMetadataReader.read(from: source) }
    let sequence = QuickTimeMetadataReader.read(from: source)
    guard var metadata = HEIFMetadataReader.readIfStructured(from: source) else {
      return sequence
    }
    metadata.movieHeaderCreationDate = sequence.movieHeaderCreationDate
    for problem in sequence.problems {
      metadata.report(AssetProblem(problem.code, "The image sequence: \(problem.message)"))
    }
    return metadata
  }

  /// Whether a `moov` box is among the file's first
  /// ``HEIFMetadataReader/maximumTopLevelBoxes`` top-level boxes; one header read per box.
  static func hasTopLevelMovie(in source: some ByteSource) -> Bool {
    var boxes = BoxIterator(topLevelOf: BoxReader(source: source))
    for _ in 0..<HEIFMetadataReader.maximumTopLevelBoxes {
      guard let header = try? boxes.next() else { return false }
      if header.type == .movie { return true }
    }
    return false
  }
}
