import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Motion photos (`Fixtures/Phones/Motion`, see `Fixtures/Phones.md`): a still with its
/// video inside the same file is one Live Photo whose paired video is a byte range.
@Suite struct MotionPhotoTests {
  /// `Fixtures/Phones/Motion`.
  static let motion = Sample.phones.folder("Motion").url

  static let names = [
    "20240202_110010.jpg", "MVIMG_20240202_100005.jpg", "PXL_20240202_100000000.MP.jpg",
    "PXL_20240202_100015000.MP.heic",
  ]

  /// The bytes of one fixture.
  static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: motion.appendingPathComponent(name)))
  }

  /// The MP4 inside a fixture: the last 2,269 bytes of the Google-style files; for the
  /// Samsung one, the `MotionPhoto_Data` field.
  static func expectedVideo(_ name: String) throws -> [UInt8] {
    let file = try bytes(name)
    if name == "20240202_110010.jpg" {
      let range = try #require(
        try SamsungTrailer.videoRange(in: ArrayByteSource(file), imageEnd: 0))
      return Array(file[range])
    }
    return Array(file.suffix(2269))
  }

  /// Every byte of `representation`, read through `getBytes` in small steps.
  static func allBytes(of representation: AssetRepresentation) throws -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1000)
    while true {
      let offset = Int64(result.count)
      let count = try buffer.withUnsafeMutableBytes {
        try representation.getBytes(into: $0, fromOffset: offset, length: 1000)
      }
      if count == 0 { return result }
      result += buffer[..<count]
    }
  }

  /// A library holding `files` (name and bytes) at its root, enumerated.
  static func enumerate(_ files: [(String, [UInt8])]) async throws -> (
    AssetsLibrary, [Asset], TemporaryFolder
  ) {
    let folder = try TemporaryFolder()
    for (name, content) in files { try folder.write(content, as: name) }
    let library = AssetsLibrary(root: folder.root)
    let assets = try await library.enumerate().assets
    return (library, assets, folder)
  }

  @Test func eachMotionPhotoIsOneLivePhotoWhosePairedVideoIsTheEmbeddedMP4() async throws {
    let (library, assets, folder) = try await Self.enumerate(
      Self.names.map { ($0, try Self.bytes($0)) })
    defer { folder.remove() }
    #expect(assets.map(\.name).sorted() == Self.names)
    for asset in assets {
      let name = asset.name
      #expect(asset.type == .livePhoto, "\(name)")
      #expect(asset.problems.isEmpty, "\(name): \(asset.problems)")
      #expect(asset.resources.map(\.role) == [.photo, .pairedVideo], "\(name)")
      #expect(asset.resources.map(\.path) == [asset.path, asset.path], "\(name)")
      #expect(asset.resources.first?.byteRange == nil)
      #expect(asset.duration == 1.5, "\(name)")
      // The still's EXIF date wins over the video's.
      #expect(asset.creationDate?.source == .exifDateTimeOriginal, "\(name)")
      let expected = try Self.expectedVideo(name)
      let file = try Self.bytes(name)
      let range = try #require(asset.resources.last?.byteRange)
      #expect(Array(file[Int(range.lowerBound)..<Int(range.upperBound)]) == expected)

      let representations = try await library.representations(for: asset)
      #expect(representations.count == 2)
      let still = try await library.defaultRepresentation(for: asset)
      #expect(still.byteRange == nil)
      #expect(try Self.allBytes(of: still) == file, "\(name)")
      let video = try #require(representations.last)
      #expect(video.size == Int64(expected.count))
      #expect(video.mediaMetadata.duration == 1.5)
      #expect(video.pixelWidth == 64 && video.pixelHeight == 48, "\(name)")
      #expect(try Self.allBytes(of: video) == expected, "\(name)")
      // An offset past the video reads nothing, even though the file goes on (Samsung).
      var buffer = [UInt8](repeating: 0, count: 16)
      let past = try buffer.withUnsafeMutableBytes {
        try video.getBytes(into: $0, fromOffset: Int64(expected.count), length: 16)
      }
      #expect(past == 0)
    }
  }

  /// `original` with every occurrence of `old` replaced by `new` (of the same length).
  static func patched(_ original: [UInt8], _ old: String, _ new: String) throws -> [UInt8] {
    let old = Array(old.utf8)
    let new = Array(new.utf8)
    try #require(old.count == new.count)
    var result = original
    var found = false
    var index = 0
    while index + old.count <= result.count {
      if result[index..<(index + old.count)].elementsEqual(old) {
        result.replaceSubrange(index..<(index + old.count), with: new)
        found = true
      }
      index += 1
    }
    try #require(found, "no \(String(decoding: old, as: UTF8.self)) to patch")
    return result
  }

  @Test func aMotionPhotoWhoseVideoDoesNotCheckOutStaysAPhotoWithAProblem() async throws {
    let google = try Self.bytes("PXL_20240202_100000000.MP.jpg")
    let micro = try Self.bytes("MVIMG_20240202_100005.jpg")
    let samsung = try Self.bytes("20240202_110010.jpg")
    let heic = try Self.bytes("PXL_20240202_100015000.MP.heic")
    var notAnMP4 = google
    let ftyp = google.count - 2269 + 4
    #expect(Array(google[ftyp..<(ftyp + 4)]) == Array("ftyp".utf8))
    notAnMP4.replaceSubrange(ftyp..<(ftyp + 4), with: Array("free".utf8))
    var samsungNotAnMP4 = samsung
    let field = try #require(
      try SamsungTrailer.videoRange(in: ArrayByteSource(samsung), imageEnd: 0))
    samsungNotAnMP4[field.lowerBound + 4] = UInt8(ascii: "x")
    let sos = try #require(JPEGStructure(parsing: ArrayByteSource(google)).imageDataStart)
    let files: [(String, [UInt8], String)] = [
      (
        "too-long.jpg", try Self.patched(google, "Item:Length=\"2269\"", "Item:Length=\"9269\""),
        "the last 9269 bytes"
      ),
      ("not-an-mp4.jpg", notAnMP4, "are not an MP4"),
      ("inside-the-image.jpg", try Self.patched(micro, ">2269<", ">5900<"), "the last 5900 bytes"),
      ("samsung-not-an-mp4.jpg", samsungNotAnMP4, "are not an MP4"),
      // The markers, then the MP4 where the SOS was: the walk finds no image data.
      ("no-image-data.jpg", Array(google[..<sos]) + Array(google.suffix(2269)), "not found"),
      ("no-trailer.jpg", Array(samsung[..<field.upperBound]), "no Samsung trailer"),
      (
        "too-long.heic", try Self.patched(heic, "Item:Length=\"2269\"", "Item:Length=\"4269\""),
        "the last 4269 bytes"
      ),
    ]
    let (library, assets, folder) = try await Self.enumerate(files.map { ($0.0, $0.1) })
    defer { folder.remove() }
    #expect(assets.count == files.count)
    for (name, _, message) in files {
      let asset = try #require(assets.first { $0.name == name })
      #expect(asset.type == .photo, "\(name)")
      #expect(asset.resources.map(\.role) == [.photo], "\(name)")
      #expect(asset.duration == nil)
      #expect(
        asset.problems.contains {
          $0.message.contains("motion photo") && $0.message.contains(message)
        },
        "\(name): \(asset.problems)")
      #expect(try await library.representations(for: asset).count == 1)
    }
  }

  @Test func aSliceReadsOnlyItsPart() throws {
    let base = ArrayByteSource(Array(0..<100))
    let slice = SliceByteSource(base, range: 10..<20)
    #expect(slice.count == 10)
    #expect(try slice.bytes(at: 0, length: 4) == [10, 11, 12, 13])
    #expect(try slice.bytes(at: 8, length: 50) == [18, 19])
    #expect(try slice.bytes(at: 10, length: 1) == [])
    #expect(try slice.bytes(at: -1, length: 1) == [])
    let past = SliceByteSource(base, range: 90..<200)
    #expect(past.count == 10)
    #expect(try past.bytes(at: 9, length: 5) == [99])
  }
}
