public import FoundationEssentials

/// A picture of an asset: encoded bytes, their pixel size and where they came from.
public struct AssetImage: Sendable, Hashable {
  /// Where a picture's pixels came from.
  public enum Source: String, Sendable, Hashable, CaseIterable {
    /// The small thumbnail a camera embedded (EXIF IFD1).
    case embeddedThumbnail
    /// A larger preview embedded in the file (a RAW's JPEG preview).
    case embeddedPreview
    /// The file's own image, decoded.
    case decodedImage
    /// A frame of the asset's movie.
    case videoFrame
    /// A valid entry of the picture cache (``LibraryOptions/pictureCache``), drawn at the
    /// target size: made earlier by this package, or by a file manager that follows the
    /// freedesktop.org thumbnail standard (which records no source of its own).
    case thumbnailCache
  }

  /// The encoded picture: JPEG or PNG (``isPNG``).
  public let data: Data
  /// Whether ``data`` is PNG (else JPEG).
  public let isPNG: Bool
  /// The picture's width in pixels, orientation applied.
  public let pixelWidth: Int
  /// The picture's height in pixels, orientation applied.
  public let pixelHeight: Int
  /// Where the pixels came from.
  public let source: Source

  /// Creates a picture from its parts: a picture drawn elsewhere (another process, a
  /// cache) and carried here as bytes.
  ///
  /// - Parameters:
  ///   - data: The encoded picture, JPEG or PNG.
  ///   - isPNG: Whether `data` is PNG.
  ///   - pixelWidth: Its width in pixels.
  ///   - pixelHeight: Its height in pixels.
  ///   - source: Where its pixels came from.
  public init(data: Data, isPNG: Bool, pixelWidth: Int, pixelHeight: Int, source: Source) {
    self.data = data
    self.isPNG = isPNG
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.source = source
  }
}

/// Why an asset's picture could not be drawn.
public enum ImageRequestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The library itself could not be read.
  case library(LibraryError)
  /// The asset's file could not be read.
  case unreadable(AssetProblem)
  /// The target size is not 1…16384 pixels on each side.
  case invalidTargetSize(width: Int, height: Int)
  /// Nothing here draws this file (its format has no decoder and it embeds no preview).
  case noDecoder(name: String, reason: String)
  /// Drawing the file would pass a budget (its pixel count or its size); nothing was
  /// decoded.
  case tooLarge(name: String, reason: String)
  /// The decoder refused the file: it is corrupt or cut short.
  case undecodable(name: String, reason: String)
  /// The decoding library could not be started.
  case decoderUnavailable(reason: String)

  /// A sentence for people.
  public var description: String {
    switch self {
    case .library(let error): error.description
    case .unreadable(let problem): problem.message
    case .invalidTargetSize(let width, let height):
      "The target size \(width) x \(height) is not 1 to \(ImageRenderer.maximumSide) pixels a side."
    case .noDecoder(let name, let reason): "'\(name)' cannot be drawn: \(reason)."
    case .tooLarge(let name, let reason): "'\(name)' is too large to draw: \(reason)."
    case .undecodable(let name, let reason): "'\(name)' cannot be decoded: \(reason)."
    case .decoderUnavailable(let reason): "The image decoder is unavailable: \(reason)."
    }
  }
}
