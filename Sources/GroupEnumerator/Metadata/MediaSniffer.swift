/// Decides a file's media format from its first bytes, and which names are candidates.
enum MediaSniffer {
  /// How many leading bytes ``format(ofHeader:)`` needs to decide.
  static let headerLength = 64

  /// The format the content is, or `nil` when it is not a media format we know.
  static func format(ofHeader header: [UInt8]) -> MediaFormat? {
    nil  // Placeholder until the sniffer lands.
  }

  /// The format a file name's extension promises (`jpg`, `JPEG`, `heic`, `mov`…),
  /// compared without regard to ASCII case; `nil` for names that are not media.
  static func format(forName name: [UInt8]) -> MediaFormat? {
    nil  // Placeholder until the sniffer lands.
  }
}
