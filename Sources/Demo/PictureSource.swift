import FoundationEssentials
import GroupEnumeratorCore

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
/// With `handsOnStored` (the page), a picture that fits the square is the picture cache's
/// entry as it is stored, drawn and stored first when there is none: one drawing per
/// picture, and what a later page (or a file manager) reuses as it is. Otherwise, and where
/// the cache does not apply, the picture is drawn at the size asked for.
struct InProcessPictures: PictureSource {
  let library: AssetsLibrary
  var handsOnStored = false

  func picture(of asset: Asset, side: Int, fills: Bool) async -> Result<AssetImage, PictureFailure>
  {
    do throws(ImageRequestError) {
      if handsOnStored, !fills,
        let stored = try await library.makeStoredPicture(for: asset, fitting: side)
      {
        return .success(
          AssetImage(
            data: Data(stored.bytes), isPNG: true, pixelWidth: stored.width,
            pixelHeight: stored.height, source: .thumbnailCache))
      }
      let image = try await library.image(
        for: asset, width: Double(side), height: Double(side),
        contentMode: fills ? .aspectFill : .aspectFit)
      return .success(image)
    } catch {
      return .failure(PictureFailure(message: error.description))
    }
  }

  func shutDown() async {}
}
