public import FoundationEssentials

/// An embedded thumbnail or preview: the original JPEG bytes, unchanged.
public struct AssetThumbnail: Sendable, Hashable {
  /// The JPEG bytes as stored in the file.
  public let data: Data
  /// The thumbnail's width in pixels, when its frame header says.
  public let pixelWidth: Int?
  /// The thumbnail's height in pixels, when its frame header says.
  public let pixelHeight: Int?
}

/// Why an asset's thumbnail could not be had.
public enum ThumbnailError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The library itself could not be read.
  case library(LibraryError)
  /// The asset's file could not be read.
  case unreadable(AssetProblem)
  /// The file embeds no thumbnail (full images are not decoded).
  case noEmbeddedThumbnail(name: String)

  /// A sentence for people.
  public var description: String {
    switch self {
    case .library(let error): error.description
    case .unreadable(let problem): problem.message
    case .noEmbeddedThumbnail(let name): "'\(name)' has no embedded thumbnail."
    }
  }
}

extension AssetsLibrary {
  /// The thumbnail or preview embedded in an asset's still, byte for byte; nothing is
  /// decoded or re-encoded.
  ///
  /// - JPEG: the EXIF IFD1 thumbnail (whatever IFD1 holds, as `exiftool -b -m
  ///   -ThumbnailImage` gives it).
  /// - HEIC, AVIF: the EXIF IFD1 thumbnail in the Exif item. The file's own thumbnail
  ///   items are HEVC or AV1, not JPEG, and are never returned.
  /// - PNG: the EXIF IFD1 thumbnail of its EXIF block.
  /// - Camera RAW, DNG, TIFF, WebP, JPEG XL: the largest JPEG preview exiv2 finds (a
  ///   RAW's embedded preview, or the EXIF thumbnail), which may be full-size. Canon CR3:
  ///   its `PRVW` preview (1620 × 1080 on the cameras described), else its `THMB`
  ///   thumbnail (160 × 120), found by our own box reader.
  ///
  /// Which reader answers for which format is `MetadataReaderTable`'s thumbnail column.
  ///
  /// ``MediaMetadata/hasThumbnail`` says whether this returns bytes.
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The thumbnail's bytes and size.
  /// - Throws: ``ThumbnailError``: the library or the file could not be read, or the file
  ///   has no embedded thumbnail.
  public func thumbnail(for asset: Asset) async throws(ThumbnailError) -> AssetThumbnail {
    // A still whose content was no known format when it was listed (a file no reader
    // takes) is never handed to a reader.
    guard let still = asset.resources.first(where: { $0.role == .photo }), still.format != nil
    else {
      throw .noEmbeddedThumbnail(name: asset.name)
    }
    let root: LibraryRoot
    do throws(LibraryError) {
      root = try LibraryRoot(path: rootPath)
    } catch {
      throw .library(error)
    }
    let bytes: [UInt8]?
    do throws(AssetProblem) {
      bytes = try LibraryFile.withOpened(root: root, path: still.path) {
        file throws(AssetProblem) -> [UInt8]? in
        let header = try file.bytes(at: 0, length: MediaSniffer.headerLength)
        // The reader that reads the format's metadata answers, unless the table says.
        guard
          let format = MediaSniffer.format(ofHeader: header, name: still.path.lastComponentBytes)
        else { return nil }
        return try MetadataReaderTable.thumbnail(from: file, format: format)
      }
    } catch {
      throw .unreadable(error)
    }
    guard let bytes else { throw .noEmbeddedThumbnail(name: still.name) }
    let frame = JPEGStructure(parsing: ArrayByteSource(bytes))
    return AssetThumbnail(
      data: Data(bytes), pixelWidth: frame.frameWidth, pixelHeight: frame.frameHeight)
  }
}
