/// The 3GPP location information box, `loci`, in `moov/udta`:
/// where a 3GP/MP4 movie was shot, as phones and FFmpeg (for `-metadata location=…` in a
/// 3GP) write it.
///
/// A full box: version and flags (4 bytes), a pad bit and a packed language code (2),
/// the place's name (a NUL-terminated string), its role (1 byte), then longitude,
/// latitude and altitude, each a signed 16.16 fixed-point number (degrees, degrees,
/// metres) — longitude first. Strings after them (the astronomical body, notes) are not
/// read.
struct LocationInformationBox: Hashable, Sendable {
  /// Degrees east; negative west.
  let longitude: Double
  /// Degrees north; negative south.
  let latitude: Double
  /// Metres above sea level.
  let altitude: Double

  /// The most content the reader loads: a name of up to a few hundred bytes.
  static let maximumLength = 1024

  /// Parses a `loci` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when the
  ///   name has no end or the numbers are missing.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    // Version and flags, then language: the name starts at 6.
    let name = try content.slice(at: 6, length: content.count - 6)
    let terminator: Int
    if name.starts(with: [0xFE, 0xFF]) || name.starts(with: [0xFF, 0xFE]) {
      // UTF-16 with a byte-order mark, ended by a 16-bit NUL.
      var index = 2
      while index + 1 < name.count, name[index] != 0 || name[index + 1] != 0 { index += 2 }
      terminator = index + 2
    } else {
      terminator = (name.firstIndex(of: 0) ?? name.count) + 1
    }
    // Role (1 byte), then the three fixed-point numbers.
    let numbers = 6 + terminator + 1
    let longitude = try content.uint32(at: numbers)
    let latitude = try content.uint32(at: numbers + 4)
    let altitude = try content.uint32(at: numbers + 8)
    self.longitude = Double(Int32(bitPattern: longitude)) / 65_536
    self.latitude = Double(Int32(bitPattern: latitude)) / 65_536
    self.altitude = Double(Int32(bitPattern: altitude)) / 65_536
  }

  /// The place, when it is on Earth's map (latitude within ±90, longitude within ±180).
  var location: Location? {
    Location(latitude: latitude, longitude: longitude, altitude: altitude)
  }
}
