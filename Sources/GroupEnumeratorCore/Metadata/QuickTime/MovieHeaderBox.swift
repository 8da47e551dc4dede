/// The movie header box, `mvhd`: when the movie was made and how long it is.
///
/// The same in the ISO base media file format and QuickTime. A full box: version 0 stores times and
/// duration in 32 bits, version 1 in 64 bits. Times count seconds since 1904-01-01 00:00:00 UTC.
struct MovieHeaderBox: TwoVersionFullBox, Hashable, Sendable {
  /// The box version, 0 or 1.
  let version: UInt8
  /// Seconds since 1904-01-01 UTC; 0 when the writer did not set it.
  let creationTime: UInt64
  /// Seconds since 1904-01-01 UTC.
  let modificationTime: UInt64
  /// Time units per second.
  let timescale: UInt32
  /// Length in ``timescale`` units; all ones means unknown.
  let duration: UInt64

  /// Version and flags, the times, timescale and duration, then rate, volume, reserved,
  /// matrix, six pre-defined and next_track_ID.
  static var requiredLengths: (version0: Int, version1: Int) { (100, 112) }

  /// Parses an `mvhd` box's content.
  ///
  /// - Throws: What ``BoxContent/version(of:)`` throws for a version other than 0 or 1
  ///   or a content shorter than its layout.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    version = try content.version(of: MovieHeaderBox.self)
    if version == 1 {
      creationTime = try content.uint64(at: 4)
      modificationTime = try content.uint64(at: 12)
      timescale = try content.uint32(at: 20)
      duration = try content.uint64(at: 24)
    } else {
      creationTime = UInt64(try content.uint32(at: 4))
      modificationTime = UInt64(try content.uint32(at: 8))
      timescale = try content.uint32(at: 12)
      let duration32 = try content.uint32(at: 16)
      duration = duration32 == UInt32.max ? UInt64.max : UInt64(duration32)
    }
  }

  /// Whether the duration is the all-ones "unknown" value of its version.
  var isDurationUnknown: Bool { duration == UInt64.max }

  /// The duration in seconds; `nil` when unknown, zero, or the timescale is 0.
  var seconds: Double? {
    guard timescale > 0, duration > 0, !isDurationUnknown else { return nil }
    return Double(duration) / Double(timescale)
  }
}
