public import Foundation

// The picture requests that take PhotoKit's `CGSize` (Foundation's, not
// FoundationEssentials'); the core takes the size as two numbers.

extension AssetsLibrary {
  /// A picture of any asset at a target size (`PHImageManager.requestImage(for:targetSize:
  /// contentMode:options:)`): a photo's image, a RAW's largest embedded preview, a video's
  /// representative frame, a Live Photo's or a motion photo's still.
  ///
  /// Orientation is always applied: EXIF 1–8, HEIF `irot`/`imir`, a movie track's
  /// rotation. The file is read beneath the library root without following symbolic
  /// links, and drawn in this process by libvips (stills) or ffmpeg's libraries (movies),
  /// within the budgets docs/Rendering.md lists: a source of more than 100 megapixels, or
  /// a still file over 256 MiB, is refused before anything is decoded.
  ///
  /// With ``ImageDeliveryMode/opportunistic`` this returns the second, decoded picture;
  /// ``images(for:targetSize:contentMode:options:)`` yields both.
  ///
  /// The library's picture cache (``LibraryOptions/pictureCache``; by default the
  /// desktop's freedesktop.org thumbnail cache) is read first: a valid entry that covers
  /// the target is drawn at it (``AssetImage/Source/thumbnailCache``). Otherwise, unless
  /// an embedded thumbnail covers the target (``ImageDeliveryMode/fastFormat``), the
  /// entry is drawn from the file, stored, and the picture drawn from it, so a miss and
  /// the hit after it give the same bytes. Targets past 1024 pixels bypass the cache.
  ///
  /// - Parameters:
  ///   - asset: An asset of this library.
  ///   - targetSize: The box to draw in, in pixels (1…16384 a side; fractions round up).
  ///   - contentMode: Fit inside the box, or fill it and crop.
  ///   - options: Delivery, resize mode, encoding and JPEG quality.
  /// - Returns: The encoded picture, its size and its source.
  /// - Throws: ``ImageRequestError``: the file cannot be read, has no decoder here, is too
  ///   large, or is corrupt.
  public func image(
    for asset: Asset, targetSize: CGSize, contentMode: ImageContentMode,
    options: ImageRequestOptions = ImageRequestOptions()
  ) async throws(ImageRequestError) -> AssetImage {
    try await image(
      for: asset, width: Double(targetSize.width), height: Double(targetSize.height),
      contentMode: contentMode, options: options)
  }

  /// The pictures a request delivers, in order: with ``ImageDeliveryMode/opportunistic``
  /// the embedded thumbnail or preview first (when the file has one), then the decoded
  /// picture (a RAW, drawn from its preview, gives one); otherwise the one
  /// ``image(for:targetSize:contentMode:options:)`` returns.
  ///
  /// - Parameters: As for ``image(for:targetSize:contentMode:options:)``.
  /// - Returns: At most two pictures; the stream ends by throwing an
  ///   ``ImageRequestError`` when the last cannot be drawn.
  public func images(
    for asset: Asset, targetSize: CGSize, contentMode: ImageContentMode,
    options: ImageRequestOptions = ImageRequestOptions()
  ) -> AsyncThrowingStream<AssetImage, any Error> {
    images(
      for: asset, width: Double(targetSize.width), height: Double(targetSize.height),
      contentMode: contentMode, options: options)
  }
}
