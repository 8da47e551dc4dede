/// Reads a JPEG's metadata: markers in Swift, the EXIF block through libexif.
enum JPEGMetadataReader {
  /// Reads everything the engine needs from a JPEG file. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  static func read(from source: some ByteSource) -> MediaMetadata {
    MediaMetadata()  // Placeholder until the reader lands.
  }
}
