import Foundation

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
      for: asset, targetSize: CGSize(width: side, height: side), contentMode: .aspectFill)
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
      for: asset, targetSize: CGSize(width: side, height: side), contentMode: .aspectFit)
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
      for: asset, targetSize: CGSize(width: width, height: height), contentMode: .aspectFit,
      options: ImageRequestOptions(deliveryMode: .highQualityFormat))
  }
}
