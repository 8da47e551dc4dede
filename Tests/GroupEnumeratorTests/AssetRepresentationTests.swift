import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

@Suite struct AssetRepresentationTests {
  let library = AssetsLibrary(root: Sample.library)

  /// The fixture asset whose primary file is at `path`.
  func asset(_ path: String) async throws -> Asset {
    let contents = try await library.enumerate()
    return try #require(contents.assets.first { $0.path == LibraryPath(path) }, "\(path)")
  }

  func sub(_ representation: AssetRepresentation, _ key: String) -> [String: any Sendable] {
    representation.metadata[key] as? [String: any Sendable] ?? [:]
  }

  @Test func aJPEGsRepresentationHasItsNameSizeTypeAndMetadata() async throws {
    let photo = try await asset(Sample.photoWithGPS)
    let representation = try await library.defaultRepresentation(for: photo)
    #expect(representation.filename == "IMG_0001.JPG")
    #expect(representation.size == 1553)
    #expect(representation.uniformTypeIdentifier == "public.jpeg")
    #expect(representation.pixelWidth == 160)
    #expect(representation.pixelHeight == 120)
    #expect(representation.orientation == 1)
    #expect(representation.assetURL == photo.url)
    #expect(representation.metadata["PixelWidth"] as? Int == 160)
    #expect(representation.metadata["PixelHeight"] as? Int == 120)
    #expect(representation.metadata["Orientation"] == nil)
    #expect(sub(representation, "{TIFF}")["DateTime"] as? String == "2019:04:06 09:00:00")
    let exif = sub(representation, "{Exif}")
    #expect(exif["DateTimeOriginal"] as? String == "2019:04:05 14:30:15")
    #expect(exif["OffsetTimeOriginal"] as? String == "+09:00")
    #expect(exif["SubsecTimeOriginal"] as? String == "123")
    #expect(exif["PixelXDimension"] as? Int == 160)
    #expect(exif["PixelYDimension"] as? Int == 120)
    let gps = sub(representation, "{GPS}")
    #expect(abs(try #require(gps["Latitude"] as? Double) - 35.0116) < 1e-6)
    #expect(gps["LatitudeRef"] as? String == "N")
    #expect(abs(try #require(gps["Longitude"] as? Double) - 135.7681) < 1e-6)
    #expect(gps["LongitudeRef"] as? String == "E")
    #expect(gps["Altitude"] as? Double == 50)
    #expect(gps["AltitudeRef"] as? Int == 0)
  }

  @Test func westAndBelowSeaLevelAreUnsignedWithTheirRefs() async throws {
    let representation = try await library.defaultRepresentation(
      for: asset("Trips/Kyoto 2019/trip-01.jpg"))
    let gps = sub(representation, "{GPS}")
    #expect(abs(try #require(gps["Latitude"] as? Double) - 40.7128) < 1e-6)
    #expect(gps["LatitudeRef"] as? String == "N")
    #expect(abs(try #require(gps["Longitude"] as? Double) - 74.006) < 1e-6)
    #expect(gps["LongitudeRef"] as? String == "W")
    #expect(gps["Altitude"] as? Double == 5)
    #expect(gps["AltitudeRef"] as? Int == 1)
    #expect(sub(representation, "{Exif}")["OffsetTimeOriginal"] as? String == "-04:00")
  }

  @Test func aRotatedPhotoReportsDisplayedDimensionsAndStoredPixelSize() async throws {
    let representation = try await library.defaultRepresentation(
      for: asset("DCIM/100APPLE/IMG_0101.JPG"))
    #expect(representation.pixelWidth == 120)
    #expect(representation.pixelHeight == 160)
    #expect(representation.orientation == 6)
    #expect(representation.metadata["Orientation"] as? Int == 6)
    #expect(representation.metadata["PixelWidth"] as? Int == 160)
    #expect(sub(representation, "{TIFF}")["Orientation"] as? Int == 6)
    #expect(sub(representation, "{GPS}").isEmpty)
    #expect(representation.metadata["{GPS}"] == nil)
  }

  @Test func aPhotoWithoutMetadataHasOnlyItsPixelSize() async throws {
    let representation = try await library.defaultRepresentation(
      for: asset(Sample.photoWithoutMetadata))
    #expect(representation.metadata.keys.sorted() == ["PixelHeight", "PixelWidth"])
  }

  @Test(arguments: [
    ("Screenshots/screenshot.png", "public.png", Int64(3207)),
    (Sample.movie, "com.apple.quicktime-movie", 2472),
    (Sample.mp4, "public.mpeg-4", 2404),
    ("Videos/old.avi", "public.avi", 6588),
  ])
  func eachFormatHasApplesTypeIdentifier(path: String, type: String, size: Int64) async throws {
    let representation = try await library.defaultRepresentation(for: asset(path))
    #expect(representation.uniformTypeIdentifier == type)
    #expect(representation.size == size)
  }

  @Test func aLivePhotoHasTheStillByDefaultAndBothFilesAsRepresentations() async throws {
    let live = try await asset(Sample.liveStill)
    let still = try await library.defaultRepresentation(for: live)
    #expect(still.filename == "IMG_0200.HEIC")
    #expect(still.uniformTypeIdentifier == "public.heic")
    #expect(still.size == 1102)
    #expect(still.pixelWidth == 64)
    #expect(still.pixelHeight == 48)
    #expect(sub(still, "{Exif}")["DateTimeOriginal"] as? String == "2021:06:05 18:30:00")
    let all = try await library.representations(for: live)
    #expect(all.map(\.filename) == ["IMG_0200.HEIC", "IMG_0200.MOV"])
    #expect(all.map(\.uniformTypeIdentifier) == ["public.heic", "com.apple.quicktime-movie"])
    let movie = try #require(
      try await library.representation(forType: "com.apple.quicktime-movie", of: live))
    #expect(movie.size == 2556)
    #expect(movie.pixelWidth == 64)
    #expect(movie.pixelHeight == 48)
    #expect(movie.metadata["{Exif}"] == nil)
    #expect(try await library.representation(forType: "public.jpeg", of: live) == nil)
  }

  @Test(arguments: [
    (Int64(0), 100), (1000, 100), (1500, 100), (1552, 10), (1553, 10), (5000, 10), (0, 4096),
    (7, 0),
  ])
  func getBytesReadsTheFilesBytes(offset: Int64, length: Int) async throws {
    let representation = try await library.defaultRepresentation(
      for: asset(Sample.photoWithGPS))
    let file = try Data(
      contentsOf: Sample.library.appendingPathComponent(Sample.photoWithGPS))
    var buffer = [UInt8](repeating: 0xEE, count: 8192)
    let count = try buffer.withUnsafeMutableBytes {
      try representation.getBytes(into: $0, fromOffset: offset, length: length)
    }
    let start = min(Int(offset), file.count)
    let expected = Array(file[start..<min(file.count, start + length)])
    #expect(count == expected.count)
    #expect(Array(buffer[..<count]) == expected)
    #expect(buffer[count] == 0xEE)
  }

  @Test func getBytesNeverWritesPastTheBuffer() async throws {
    let representation = try await library.defaultRepresentation(
      for: asset(Sample.photoWithGPS))
    var buffer = [UInt8](repeating: 0xEE, count: 16)
    let count = try buffer.withUnsafeMutableBytes {
      try representation.getBytes(
        into: UnsafeMutableRawBufferPointer(rebasing: $0[..<8]), fromOffset: 0, length: 1000)
    }
    #expect(count == 8)
    #expect(Array(buffer[..<2]) == [0xFF, 0xD8])
    #expect(buffer[8...].allSatisfy { $0 == 0xEE })
  }

  @Test func getBytesRejectsANegativeOffset() async throws {
    let representation = try await library.defaultRepresentation(
      for: asset(Sample.photoWithGPS))
    var buffer = [UInt8](repeating: 0, count: 4)
    #expect(throws: AssetProblem.self) {
      try buffer.withUnsafeMutableBytes {
        try representation.getBytes(into: $0, fromOffset: -1, length: 4)
      }
    }
  }

  @Test func uniformTypeIdentifiersFollowTheExtensionWithinAFormat() {
    let table: [(MediaFormat?, String, String)] = [
      (.raw, "DNG", "com.adobe.raw-image"), (.raw, "cr2", "com.canon.cr2-raw-image"),
      (.raw, "NEF", "com.nikon.raw-image"), (.raw, "arw", "com.sony.arw-raw-image"),
      (.raw, "xyz", "public.camera-raw-image"), (.heic, "HEIF", "public.heif"),
      (.heic, "heic", "public.heic"), (.avif, "avif", "public.avif"),
      (.webp, "webp", "org.webmproject.webp"), (.tiff, "tif", "public.tiff"),
      (.m4v, "m4v", "com.apple.m4v-video"), (.threeGPP, "3gp", "public.3gpp"),
      (.threeGPP, "3g2", "public.3gpp2"), (nil, "txt", "public.data"),
    ]
    for (format, fileExtension, expected) in table {
      #expect(
        UniformTypeIdentifier.identifier(format: format, fileExtension: fileExtension)
          == expected, "\(String(describing: format)) .\(fileExtension)")
    }
  }
}
