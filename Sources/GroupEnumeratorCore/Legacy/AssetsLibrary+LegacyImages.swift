import FoundationEssentials

extension AssetsLibrary {
  /// The side of ``thumbnailImage(for:)``'s square and of
  /// ``aspectRatioThumbnail(for:)``'s box, in pixels.
  public static let legacyThumbnailSide = 150
  /// The box ``fullScreenImage(for:)`` fits in, in pixels.
  public static let fullScreenSide = 1920

  /// `ALAsset.thumbnail`: a square picture of the asset, 150 × 150, the centre of the
  /// picture scaled to cover it. Drawn by ``image(for:targetSize:contentMode:options:)``
  /// (an embedded thumbnail when it is large enough).
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The JPEG (PNG when the source has alpha) picture.
  /// - Throws: ``ImageRequestError`` when the asset cannot be drawn.
  public func thumbnailImage(for asset: Asset) async throws(ImageRequestError) -> AssetImage {
    let side = Double(Self.legacyThumbnailSide)
    return try await image(
      for: asset, width: side, height: side, contentMode: .aspectFill)
  }

  /// `ALAsset.aspectRatioThumbnail`: the whole picture, its shape kept, fitted in
  /// 150 × 150.
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The JPEG (PNG when the source has alpha) picture.
  /// - Throws: ``ImageRequestError`` when the asset cannot be drawn.
  public func aspectRatioThumbnail(for asset: Asset) async throws(ImageRequestError)
    -> AssetImage
  {
    let side = Double(Self.legacyThumbnailSide)
    return try await image(
      for: asset, width: side, height: side, contentMode: .aspectFit)
  }

  /// `ALAssetRepresentation.fullScreenImage`: the picture turned upright and fitted in
  /// 1920 × 1920, never enlarged (a smaller picture keeps its size when the asset's size
  /// is known), decoded rather than taken from an embedded thumbnail.
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The JPEG (PNG when the source has alpha) picture.
  /// - Throws: ``ImageRequestError`` when the asset cannot be drawn.
  public func fullScreenImage(for asset: Asset) async throws(ImageRequestError) -> AssetImage {
    var width = Self.fullScreenSide
    var height = Self.fullScreenSide
    if let shownWidth = asset.pixelWidth, let shownHeight = asset.pixelHeight, shownWidth > 0,
      shownHeight > 0
    {
      width = min(width, shownWidth)
      height = min(height, shownHeight)
    }
    return try await image(
      for: asset, width: Double(width), height: Double(height), contentMode: .aspectFit,
      options: ImageRequestOptions(deliveryMode: .highQualityFormat))
  }

  /// `ALAssetRepresentation.fullResolutionImage`: every pixel of the picture as stored, the
  /// orientation the file records not applied, with that orientation to apply
  /// (`ALAssetRepresentation.orientation`). Decoded, never taken from an embedded
  /// thumbnail; never enlarged.
  ///
  /// A HEIF's pixels come as libheif gives them, its `irot`/`imir` applied (they are part
  /// of the image, not a tag), with orientation 1; a RAW's are its largest embedded preview;
  /// a movie's frame comes turned upright, with orientation 1. A side over 16,384 pixels is
  /// shrunk to it (aspect kept); more than 100 megapixels is ``ImageRequestError/tooLarge(name:reason:)``.
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The JPEG (PNG when the source has alpha) picture, and the EXIF orientation
  ///   (1…8) that turns it upright.
  /// - Throws: ``ImageRequestError`` when the asset cannot be drawn.
  public func fullResolutionImage(for asset: Asset) async throws(ImageRequestError) -> (
    image: AssetImage, orientation: Int
  ) {
    var options = ImageRequestOptions(deliveryMode: .highQualityFormat)
    options.isAsStored = true
    let side = Double(ImageRenderer.maximumSide)
    let image = try await image(
      for: asset, width: side, height: side, contentMode: .aspectFit,
      options: options)
    let still = asset.resources.first { $0.role == .photo && $0.format?.isVideo != true }
    guard asset.type != .video, let still, still.format != .heic, still.format != .avif,
      let orientation = asset.metadata.orientation, (1...8).contains(orientation)
    else { return (image, 1) }
    return (image, orientation)
  }
}
