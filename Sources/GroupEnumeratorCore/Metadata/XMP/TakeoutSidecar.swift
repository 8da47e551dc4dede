internal import FoundationEssentials

/// What a Google Takeout sidecar (`IMG_1234.jpg.json`) says about its photo.
///
/// Takeout exports many photos with their EXIF stripped and writes what Google Photos
/// knew beside them as JSON: `photoTakenTime.timestamp` (seconds since 1970, as a
/// string, UTC) is when the shot was taken — `creationTime` is when it was uploaded, and
/// is never used — and `geoData` the place shown in Google Photos (`geoDataExif` the one
/// the camera recorded), where 0, 0 means none.
struct TakeoutSidecar: Sendable, Equatable {
  /// The largest sidecar read: real ones are about 1 KiB; a long description or many
  /// people tags stay far below this.
  static let maximumSize = 1 << 20

  /// When the shot was taken, a UTC instant.
  var takenTime: Date?
  /// Where, when the sidecar has a place.
  var location: Location?
  /// What was wrong with the sidecar.
  var problems: [AssetProblem] = []

  /// Whether `bytes` are a Takeout sidecar at all: at most ``maximumSize`` bytes of JSON
  /// whose top level is an object with a `title` or a `photoTakenTime` key (every
  /// sidecar Takeout writes has both), so that other `.json` files are left alone.
  static func isTakeoutSidecar(_ bytes: [UInt8]) -> Bool {
    guard bytes.count <= maximumSize, bytes.first(where: { !isSpace($0) }) == UInt8(ascii: "{")
    else { return false }
    guard let keys = try? JSONDecoder().decode(TopLevelKeys.self, from: Data(bytes)) else {
      return false
    }
    return keys.hasTitle || keys.hasPhotoTakenTime
  }

  /// Which of the keys that identify a Takeout sidecar a JSON object has.
  private struct TopLevelKeys: Decodable {
    var hasTitle: Bool
    var hasPhotoTakenTime: Bool

    private struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Key.self)
      hasTitle = container.contains(Key(stringValue: "title"))
      hasPhotoTakenTime = container.contains(Key(stringValue: "photoTakenTime"))
    }
  }

  /// Parses a sidecar.
  ///
  /// - Returns: What it says; problems for a sidecar or value that could not be read.
  static func parse(_ bytes: [UInt8]) -> TakeoutSidecar {
    var sidecar = TakeoutSidecar()
    guard bytes.count <= maximumSize else {
      sidecar.problems.append(
        AssetProblem(
          .malformed,
          "The Takeout sidecar is \(bytes.count) bytes, more than the \(maximumSize) read; "
            + "ignored."))
      return sidecar
    }
    let document: Document
    do {
      document = try JSONDecoder().decode(Document.self, from: Data(bytes))
    } catch {
      sidecar.problems.append(
        AssetProblem(
          .malformed, "The Takeout sidecar is not the JSON Google Takeout writes; ignored."))
      return sidecar
    }
    if let text = document.photoTakenTime?.timestamp {
      if let seconds = Int64(text.trimming(\.isSpaceOrTab)),
        seconds > -62_135_596_800, seconds < 253_402_300_800
      {
        sidecar.takenTime = Date(timeIntervalSince1970: TimeInterval(seconds))
      } else {
        sidecar.problems.append(
          AssetProblem(
            .invalidValue,
            "The Takeout photoTakenTime \(XMPPacket.quoted(text)) is not a time; ignored."))
      }
    }
    for place in [document.geoData, document.geoDataExif].compactMap({ $0 }) {
      guard let latitude = place.latitude, let longitude = place.longitude,
        latitude != 0 || longitude != 0
      else { continue }
      if let location = Location(latitude: latitude, longitude: longitude, altitude: place.altitude)
      {
        sidecar.location = location
      } else {
        sidecar.problems.append(
          AssetProblem(
            .invalidValue,
            "The Takeout place \(latitude), \(longitude) is out of range; ignored."))
      }
      break
    }
    return sidecar
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// The part of Takeout's JSON that is read; every other key is ignored.
  private struct Document: Decodable {
    struct Time: Decodable {
      var timestamp: String?
    }

    struct Place: Decodable {
      var latitude: Double?
      var longitude: Double?
      var altitude: Double?
    }

    var photoTakenTime: Time?
    var geoData: Place?
    var geoDataExif: Place?
  }
}
