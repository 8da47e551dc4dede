import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// A small JPEG of the given size: the kind of bytes a thumbnail or a preview holds.
private func smallJPEG(width: Int, height: Int) -> [UInt8] {
  EXIFTestBuilder.jpeg(app1: nil, width: width, height: height)
}

/// A TIFF-based RAW (written as `.dng`): IFD1 holds `thumbnail`, and, when `preview` is
/// given, IFD0's JPEGInterchangeFormat points to it at the end of the file, as older
/// RAWs store their large preview.
private func tiffRAW(thumbnail: [UInt8]?, preview: [UInt8]? = nil) -> [UInt8] {
  var builder = EXIFTestBuilder()
  builder.ifd0 = [(0x0132, .ascii("2024:01:02 03:04:05"))]
  builder.thumbnail = thumbnail
  guard let preview else { return builder.tiff() }
  builder.ifd0 += [(0x0201, .long([0])), (0x0202, .long([UInt32(preview.count)]))]
  // The entries are inline LONGs, so the layout does not depend on the offset's value.
  let offset = UInt32(builder.tiff().count)
  builder.ifd0[1] = (0x0201, .long([offset]))
  return builder.tiff() + preview
}

/// A HEIC whose Exif item (`cdsc` to the 64×48 primary item) holds `tiff`.
private func heic(tiff: [UInt8]) -> [UInt8] {
  BoxBuilder.heicWithExif(tiff: tiff, properties: [BoxBuilder.ispe(64, 48)])
}

@Suite struct ThumbnailTests {
  /// Writes `files` into a fresh library and reads it.
  func read(_ files: [(String, [UInt8])]) async throws -> (TemporaryFolder, AssetsLibrary, [Asset])
  {
    let folder = try TemporaryFolder()
    for (name, bytes) in files { try folder.write(bytes, as: name) }
    let library = AssetsLibrary(root: folder.root)
    return (folder, library, try await library.enumerate().assets)
  }

  @Test func aRAWGivesItsLargestJPEGPreviewByteForByte() async throws {
    let preview = smallJPEG(width: 160, height: 120)
    let thumbnail = smallJPEG(width: 32, height: 24)
    let (folder, library, assets) = try await read([
      ("both.dng", tiffRAW(thumbnail: thumbnail, preview: preview)),
      ("thumbnail-only.dng", tiffRAW(thumbnail: thumbnail)),
    ])
    defer { folder.remove() }
    let both = try #require(assets.first { $0.name == "both.dng" })
    #expect(both.resources.first?.format == .raw)
    #expect(both.metadata.hasThumbnail)
    let largest = try await library.thumbnail(for: both)
    #expect(Array(largest.data) == preview)
    #expect(largest.pixelWidth == 160)
    #expect(largest.pixelHeight == 120)
    let only = try #require(assets.first { $0.name == "thumbnail-only.dng" })
    #expect(only.metadata.hasThumbnail)
    #expect(Array(try await library.thumbnail(for: only).data) == thumbnail)
  }

  @Test func aPNGsEXIFThumbnailComesFromItsEXIFBlockLikeHasThumbnailSays() async throws {
    let thumbnail = smallJPEG(width: 32, height: 24)
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0112, .short([1]))]
    builder.thumbnail = thumbnail
    let (folder, library, assets) = try await read([
      ("with.png", PNGBuilder.png(before: [PNGBuilder.exif(builder.tiff())])),
      ("without.png", PNGBuilder.png()),
    ])
    defer { folder.remove() }
    let with = try #require(assets.first { $0.name == "with.png" })
    #expect(with.metadata.hasThumbnail)
    #expect(Array(try await library.thumbnail(for: with).data) == thumbnail)
    let without = try #require(assets.first { $0.name == "without.png" })
    #expect(!without.metadata.hasThumbnail)
    await #expect(throws: ThumbnailError.noEmbeddedThumbnail(name: "without.png")) {
      try await library.thumbnail(for: without)
    }
  }

  @Test func aRAWWithoutPreviewSaysSoAndHasNoThumbnail() async throws {
    let (folder, library, assets) = try await read([("plain.dng", tiffRAW(thumbnail: nil))])
    defer { folder.remove() }
    let plain = try #require(assets.first)
    #expect(!plain.metadata.hasThumbnail)
    await #expect(throws: ThumbnailError.noEmbeddedThumbnail(name: "plain.dng")) {
      try await library.thumbnail(for: plain)
    }
  }

  @Test func aHEICGivesTheEXIFThumbnailOfItsExifItem() async throws {
    let thumbnail = smallJPEG(width: 32, height: 24)
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x0132, .ascii("2024:01:02 03:04:05"))]
    builder.thumbnail = thumbnail
    let withThumbnail = heic(tiff: builder.tiff())
    builder.thumbnail = nil
    let (folder, library, assets) = try await read([
      ("with.heic", withThumbnail), ("without.heic", heic(tiff: builder.tiff())),
    ])
    defer { folder.remove() }
    let with = try #require(assets.first { $0.name == "with.heic" })
    #expect(with.metadata.hasThumbnail)
    let found = try await library.thumbnail(for: with)
    #expect(Array(found.data) == thumbnail)
    #expect(found.pixelWidth == 32)
    let without = try #require(assets.first { $0.name == "without.heic" })
    #expect(!without.metadata.hasThumbnail)
    await #expect(throws: ThumbnailError.noEmbeddedThumbnail(name: "without.heic")) {
      try await library.thumbnail(for: without)
    }
  }

  @Test func theBundledHEICAndPNGHaveNoThumbnailAndSaySo() async throws {
    let library = AssetsLibrary(root: Sample.library)
    let assets = try await library.enumerate().assets
    for path in [Sample.liveStill, "Screenshots/screenshot.png"] {
      let asset = try #require(assets.first { $0.path == LibraryPath(path) }, "\(path)")
      #expect(!asset.metadata.hasThumbnail, "\(path)")
      await #expect(throws: ThumbnailError.self, "\(path)") {
        try await library.thumbnail(for: asset)
      }
    }
  }
}
