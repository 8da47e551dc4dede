public import Foundation

extension CachingImageManager {
  /// Queues the pictures of `assets` at a size, in order, skipping those queued or being
  /// drawn already.
  ///
  /// - Parameters:
  ///   - assets: Assets of ``library``.
  ///   - targetSize: The size the pictures will be requested at (1…16384 a side; other
  ///     sizes are ignored).
  ///   - contentMode: The content mode they will be requested with.
  public func startCaching(assets: [Asset], targetSize: CGSize, contentMode: ImageContentMode) {
    startCaching(
      assets: assets, width: Double(targetSize.width), height: Double(targetSize.height),
      contentMode: contentMode)
  }

  /// Removes the pictures of `assets` at a size from the queue and cancels those being
  /// drawn.
  public func stopCaching(assets: [Asset], targetSize: CGSize, contentMode: ImageContentMode) {
    stopCaching(
      assets: assets, width: Double(targetSize.width), height: Double(targetSize.height),
      contentMode: contentMode)
  }
}
