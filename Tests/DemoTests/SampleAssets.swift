import Foundation
import GroupEnumerator
import Testing

@testable import Demo

/// Assets built from model values, for formatter tests that need no files.
enum SampleAssets {
  /// A JPEG in the Camera Roll with GPS south-west of Greenwich, a TIFF DateTime and a
  /// DateTimeOriginal with an offset.
  static func photoWithGPS() throws -> Asset {
    var metadata = MediaMetadata()
    metadata.dateTime = "2019:05:01 12:34:56"
    let original = try #require(
      CaptureDate(
        year: 2019, month: 5, day: 1, hour: 12, minute: 34, second: 56, subsecond: "12",
        zone: .offset(seconds: 9 * 3600), source: .exifDateTimeOriginal))
    metadata.dateTimeOriginal = original
    let location = try #require(
      Location(latitude: -33.856784, longitude: -151.215297, altitude: 12.5))
    metadata.location = location
    metadata.pixelWidth = 4032
    metadata.pixelHeight = 3024
    metadata.orientation = 6
    metadata.hasThumbnail = true
    metadata.make = "Apple"
    metadata.model = "iPhone XS"
    metadata.lensModel = "iPhone XS back dual camera 4.25mm f/1.8"
    let path = LibraryPath("DCIM/100APPLE/IMG_0001.JPG")
    return Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 2_345_678)],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000), metadata: metadata)
  }

  /// A PNG in an album with a CJK name, no metadata at all, and one problem.
  static func photoWithoutGPS() -> Asset {
    var metadata = MediaMetadata()
    metadata.problems = [AssetProblem(.malformed, "The PNG ends inside a chunk.")]
    let path = LibraryPath("旅行/京都の写真.png")
    return Asset(
      path: path, group: .album, groupPath: LibraryPath("旅行"), type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .png, fileSize: 10)],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000), metadata: metadata)
  }

  /// A movie in the Camera Roll with a duration and a movie-header date.
  static func video() throws -> Asset {
    var metadata = MediaMetadata()
    metadata.duration = 3.5
    metadata.pixelWidth = 1920
    metadata.pixelHeight = 1080
    let created = try #require(
      CaptureDate(
        year: 2020, month: 1, day: 2, hour: 3, minute: 4, second: 5, zone: .utc,
        source: .quickTimeMovieHeader))
    metadata.movieHeaderCreationDate = created
    let path = LibraryPath("MOV_0002.MOV")
    return Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .video,
      resources: [AssetResource(path: path, role: .video, format: .quickTime, fileSize: 99)],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000), metadata: metadata)
  }

  /// A Live Photo in the Camera Roll: a HEIC still with a DateTimeDigitized and its
  /// 2.5-second movie.
  static func livePhoto() throws -> Asset {
    var metadata = MediaMetadata()
    metadata.duration = 2.5
    metadata.pixelWidth = 3024
    metadata.pixelHeight = 4032
    let digitized = try #require(
      CaptureDate(
        year: 2023, month: 10, day: 31, hour: 11, minute: 44, second: 43,
        zone: .offset(seconds: 3600), source: .exifDateTimeDigitized))
    metadata.dateTimeDigitized = digitized
    let still = LibraryPath("IMG_0003.HEIC")
    let movie = LibraryPath("IMG_0003.MOV")
    return Asset(
      path: still, group: .savedPhotos, groupPath: .root, type: .livePhoto,
      resources: [
        AssetResource(path: still, role: .photo, format: .heic, fileSize: 1_000),
        AssetResource(path: movie, role: .pairedVideo, format: .quickTime, fileSize: 2_000),
      ],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000), metadata: metadata)
  }
}

extension SampleAssets {
  /// ``livePhoto()`` with two sidecars, as the engine lists them: after the movie.
  static func livePhotoWithSidecars() throws -> Asset {
    let live = try livePhoto()
    return Asset(
      path: live.path, group: live.group, groupPath: live.groupPath, type: live.type,
      resources: live.resources + [
        AssetResource(path: LibraryPath("IMG_0003.AAE"), role: .sidecar, format: nil, fileSize: 3),
        AssetResource(
          path: LibraryPath("IMG_0003.HEIC.xmp"), role: .sidecar, format: nil, fileSize: 4),
      ],
      fileModificationDate: live.fileModificationDate, metadata: live.metadata)
  }
}

/// A text stream that keeps what is written, for comparing whole outputs.
struct TextBuffer: ByteOutputStream {
  /// Everything written so far.
  var text = ""

  mutating func write(_ string: String) { text += string }

  mutating func write(bytes: [UInt8]) { text += String(decoding: bytes, as: UTF8.self) }
}
