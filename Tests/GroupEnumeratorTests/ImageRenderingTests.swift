import Foundation
import Testing

@testable import GroupEnumerator

/// `image(for:targetSize:contentMode:options:)` on the sample library's real files.
@Suite struct ImageRenderingTests {
  let library = AssetsLibrary(root: Sample.library)

  func asset(_ path: String) async throws -> Asset {
    let assets = try await library.enumerate().assets
    return try #require(assets.first { $0.resources.contains { $0.path.description == path } })
  }

  @Test func everySampleAssetHasAPictureOrATypedError() async throws {
    let assets = try await library.enumerate().assets
    #expect(assets.count >= 10)
    var drawn = 0
    for asset in assets {
      do throws(ImageRequestError) {
        let image = try await library.image(
          for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
        #expect(max(image.pixelWidth, image.pixelHeight) == 80, "\(asset.path)")
        let decoded = try? ImageRenderer.decodeRGB(Array(image.data))
        #expect(decoded?.width == image.pixelWidth && decoded?.height == image.pixelHeight)
        print("\(asset.path): \(image.source) \(image.pixelWidth)x\(image.pixelHeight)")
        drawn += 1
      } catch {
        print("\(asset.path): \(error)")
        switch error {
        case .noDecoder, .undecodable, .tooLarge: break
        default: Issue.record("\(asset.path): \(error)")
        }
      }
    }
    print("drawn \(drawn) of \(assets.count)")
  }
}
