import Foundation
import Testing

@testable import GroupEnumerator

/// `make render-sweep`: one 80 × 80 picture of every asset of the folders named in
/// `GROUPENUMERATOR_RENDER_SWEEP` (colon-separated; the shared corpus and hostile set).
/// Skipped without it: those folders are not part of the repository.
@Suite struct RenderSweepTests {
  @Test func everyAssetHasAPictureOrADrawingError() async throws {
    guard let folders = ProcessInfo.processInfo.environment["GROUPENUMERATOR_RENDER_SWEEP"]
    else { return }
    for folder in folders.split(separator: ":").map(String.init) {
      let library = AssetsLibrary(
        root: URL(fileURLWithPath: folder), options: LibraryOptions(pictureCache: .none))
      let assets = try await library.enumerate().assets
      #expect(!assets.isEmpty, "\(folder)")
      var pictures = 0
      for asset in assets {
        do throws(ImageRequestError) {
          let image = try await library.image(
            for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
          #expect(max(image.pixelWidth, image.pixelHeight) == 80, "\(asset.path)")
          #expect(image.data.starts(with: image.isPNG ? [0x89, 0x50] : [0xFF, 0xD8]))
          pictures += 1
        } catch {
          // A file that cannot be drawn says why; the library and the decoders are
          // always there, and every file of the sweep is readable.
          switch error {
          case .noDecoder, .undecodable, .tooLarge: break
          default: Issue.record("\(asset.path): \(error)")
          }
        }
      }
      print("render-sweep: \(folder): \(pictures) pictures of \(assets.count) assets")
    }
  }
}
