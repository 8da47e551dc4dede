import Foundation
import GroupEnumerator

/// Why the Demo has no picture for an asset: a sentence for people.
struct PictureFailure: Error, Sendable, Hashable {
  /// What went wrong, already free of terminal control characters' meaning (callers pass it
  /// through ``OutputHygiene`` before printing).
  let message: String
}

/// Where the Demo's pictures are drawn: in this process, or (for untrusted files at scale)
/// in worker processes, so that a decoder's crash or hang costs one picture.
protocol PictureSource: Sendable {
  /// The picture of `asset` in a `side` × `side` box: aspect-fit, or aspect-fill and cropped
  /// when `fills` is set.
  func picture(of asset: Asset, side: Int, fills: Bool) async -> Result<AssetImage, PictureFailure>

  /// Ends what the source started (worker processes); later calls fail.
  func shutDown() async
}

/// Draws pictures with the library in this process.
///
/// Every picture is decoded (``ImageDeliveryMode/highQualityFormat``), through the picture
/// cache the library's options name: a picture drawn leaves the cache's entry behind
/// (`fastFormat` would take an embedded thumbnail that covers the square and leave none),
/// which a later page hands on as it is and a file manager reuses.
struct InProcessPictures: PictureSource {
  let library: AssetsLibrary

  func picture(of asset: Asset, side: Int, fills: Bool) async -> Result<AssetImage, PictureFailure>
  {
    do throws(ImageRequestError) {
      let image = try await library.image(
        for: asset, targetSize: CGSize(width: side, height: side),
        contentMode: fills ? .aspectFill : .aspectFit,
        options: ImageRequestOptions(deliveryMode: .highQualityFormat))
      return .success(image)
    } catch {
      return .failure(PictureFailure(message: error.description))
    }
  }

  func shutDown() async {}
}
