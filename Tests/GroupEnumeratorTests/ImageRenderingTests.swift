import CVipsShim
import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// `image(for:targetSize:contentMode:options:)` on real files: the sample library, and
/// the oriented stills, movies and hostile files Resources/make-rendering.sh made.
@Suite struct ImageRenderingTests {
  /// Resources/Rendering, found from this file's location.
  static let folder = Sample.resources.folder("Rendering").url

  // No picture cache: these tests see the pictures drawn from the files (PictureCacheTests
  // covers the cache), and never write into the test runner's own ~/.cache.
  let sample = AssetsLibrary(root: Sample.library, options: LibraryOptions(pictureCache: .none))
  let rendering = AssetsLibrary(
    root: Self.folder, options: LibraryOptions(pictureCache: .none))

  func asset(_ name: String, in library: AssetsLibrary) async throws -> Asset {
    let assets = try await library.enumerate().assets
    return try #require(assets.first { $0.resources.contains { $0.path.description == name } })
  }

  func draw(
    _ name: String, _ width: Int, _ height: Int, _ mode: ImageContentMode = .aspectFit,
    options: ImageRequestOptions = ImageRequestOptions(), in library: AssetsLibrary? = nil
  ) async throws -> AssetImage {
    let library = library ?? rendering
    return try await library.image(
      for: try await asset(name, in: library), targetSize: CGSize(width: width, height: height),
      contentMode: mode, options: options)
  }

  /// The error drawing `name` throws, or `nil` when it draws.
  func failure(_ name: String, in library: AssetsLibrary? = nil) async throws -> ImageRequestError?
  {
    let library = library ?? rendering
    let asset = try await asset(name, in: library)
    do throws(ImageRequestError) {
      _ = try await library.image(
        for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
      return nil
    } catch {
      return error
    }
  }

  /// Decoded pixels of a picture.
  func pixels(_ data: Data) throws -> (pixels: [UInt8], width: Int, height: Int) {
    try ImageRenderer.decodeRGB(Array(data))
  }

  /// The mean absolute difference of two same-sized RGB pictures, 0…255.
  func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var total = 0
    for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
    return Double(total) / Double(a.count)
  }

  /// The standard deviation of a picture's samples: near 0 for one colour.
  func deviation(_ samples: [UInt8]) -> Double {
    let mean = Double(samples.reduce(0) { $0 + Int($1) }) / Double(samples.count)
    let squares = samples.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
    return (squares / Double(samples.count)).squareRoot()
  }

  @Test func everySampleAssetHasAPictureOrATypedError() async throws {
    let assets = try await sample.enumerate().assets
    #expect(assets.count == 15)
    var sources: [String: AssetImage.Source] = [:]
    var errors: [String: ImageRequestError] = [:]
    for asset in assets {
      let image: AssetImage
      do throws(ImageRequestError) {
        image = try await sample.image(
          for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
      } catch {
        errors[asset.path.description] = error
        continue
      }
      #expect(max(image.pixelWidth, image.pixelHeight) == 80, "\(asset.path)")
      let decoded = try pixels(image.data)
      #expect(decoded.width == image.pixelWidth && decoded.height == image.pixelHeight)
      sources[asset.path.description] = image.source
    }
    #expect(sources.count == 13)
    #expect(sources["DCIM/100APPLE/IMG_0102.MOV"] == .videoFrame)
    #expect(sources["Videos/old.avi"] == .videoFrame)
    #expect(sources["DCIM/100APPLE/IMG_0200.HEIC"] == .decodedImage)  // the Live Photo's still
    #expect(sources["Screenshots/screenshot.png"] == .decodedImage)
    guard case .undecodable = errors["Broken/broken.jpg"] else {
      Issue.record("broken.jpg: \(String(describing: errors["Broken/broken.jpg"]))")
      return
    }
    guard case .noDecoder = errors["Broken/empty.jpg"] else {
      Issue.record("empty.jpg: \(String(describing: errors["Broken/empty.jpg"]))")
      return
    }
  }

  @Test(arguments: 1...8) func everyOrientationIsDrawnUpright(orientation: Int) async throws {
    let upright = try ImageRenderer.decodeRGB(
      Array(try Data(contentsOf: Self.folder.appendingPathComponent("upright.png"))))
    #expect(upright.width == 96 && upright.height == 64)
    let decoded = try await draw(
      "orientation-\(orientation).jpg", 96, 64,
      options: ImageRequestOptions(deliveryMode: .highQualityFormat))
    #expect(decoded.source == .decodedImage)
    let drawn = try pixels(decoded.data)
    #expect(drawn.width == 96 && drawn.height == 64)
    #expect(meanDifference(drawn.pixels, upright.pixels) < 4)

    // The embedded 48x32 thumbnail, turned by the file's orientation.
    let small = try await draw("orientation-\(orientation).jpg", 24, 24)
    #expect(small.source == .embeddedThumbnail)
    let reference = try ImageRenderer.draw(
      encoded: Array(try Data(contentsOf: Self.folder.appendingPathComponent("upright.png"))),
      ImageRenderer.Request(
        width: 24, height: 24, contentMode: .aspectFit, orientation: nil, encoding: .png,
        jpegQuality: 90))
    let thumbnail = try pixels(small.data)
    let expected = try pixels(reference.data)
    #expect(thumbnail.width == 24 && thumbnail.height == 16)
    #expect(expected.width == 24 && expected.height == 16)
    #expect(meanDifference(thumbnail.pixels, expected.pixels) < 12)
    // A wrong turn is far off: the upright picture against itself mirrored.
    if orientation == 1 {
      let mirrored = try await draw(
        "orientation-2.jpg", 96, 64,
        options: ImageRequestOptions(deliveryMode: .highQualityFormat))
      let turned = try await draw(
        "orientation-3.jpg", 96, 64, options: ImageRequestOptions(deliveryMode: .highQualityFormat))
      #expect(meanDifference(try pixels(mirrored.data).pixels, drawn.pixels) < 4)
      #expect(meanDifference(try pixels(turned.data).pixels, drawn.pixels) < 4)
      // The stored pixels of orientation 3 are upside down: far from upright.
      let stored = try ImageRenderer.decodeRGB(
        Array(try Data(contentsOf: Self.folder.appendingPathComponent("orientation-1.jpg"))))
      #expect(meanDifference(stored.pixels, upright.pixels) < 4)
    }
  }

  @Test func aStoredPictureTurnedWrongIsFarFromUpright() async throws {
    // What the orientation test's threshold separates: orientation 3's stored pixels
    // (upside down), decoded without turning, against the upright picture.
    let upright = try ImageRenderer.decodeRGB(
      Array(try Data(contentsOf: Self.folder.appendingPathComponent("upright.png"))))
    let bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent("orientation-3.jpg")))
    let unturned = try ImageRenderer.draw(
      encoded: bytes,
      ImageRenderer.Request(
        width: 96, height: 64, contentMode: .aspectFit, orientation: 1, encoding: .png,
        jpegQuality: 90))
    #expect(meanDifference(try pixels(unturned.data).pixels, upright.pixels) > 40)
  }

  @Test func aspectFitAndFillSizesAreExact() async throws {
    // orientation-6.jpg shows 96x64 (stored 64x96).
    let options = ImageRequestOptions(deliveryMode: .highQualityFormat)
    for (width, height, mode, expected) in [
      (50, 50, ImageContentMode.aspectFit, (50, 33)), (48, 48, .aspectFit, (48, 32)),
      (200, 100, .aspectFit, (150, 100)), (50, 50, .aspectFill, (50, 50)),
      (30, 70, .aspectFill, (30, 70)), (90, 20, .aspectFill, (90, 20)),
    ] {
      let image = try await draw("orientation-6.jpg", width, height, mode, options: options)
      let decoded = try pixels(image.data)
      #expect(
        image.pixelWidth == expected.0 && image.pixelHeight == expected.1,
        "\(width)x\(height) \(mode): \(image.pixelWidth)x\(image.pixelHeight)")
      #expect(decoded.width == image.pixelWidth && decoded.height == image.pixelHeight)
      #expect(!image.isPNG)
    }
  }

  @Test func deliveryAndResizeModes() async throws {
    // fastFormat: the 48x32 thumbnail covers 24x24, not 80x80.
    #expect(try await draw("orientation-1.jpg", 24, 24).source == .embeddedThumbnail)
    #expect(try await draw("orientation-1.jpg", 80, 80).source == .decodedImage)
    // resizeMode fast: the thumbnail as stored, larger than asked.
    let asStored = try await draw(
      "orientation-1.jpg", 24, 24, options: ImageRequestOptions(resizeMode: .fast))
    #expect(asStored.pixelWidth == 48 && asStored.pixelHeight == 32)
    let thumbnail = try await rendering.thumbnail(
      for: try await asset("orientation-1.jpg", in: rendering))
    #expect(asStored.data == thumbnail.data)
    // A turned thumbnail is drawn, not returned as stored.
    let turned = try await draw(
      "orientation-6.jpg", 24, 24, options: ImageRequestOptions(resizeMode: .fast))
    #expect(turned.pixelWidth == 24 && turned.pixelHeight == 16)
    // PNG on request.
    let png = try await draw(
      "orientation-1.jpg", 24, 24, options: ImageRequestOptions(encoding: .png))
    #expect(png.isPNG && png.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // opportunistic: the thumbnail, then the decoded picture.
    var delivered: [AssetImage.Source] = []
    for try await image in rendering.images(
      for: try await asset("orientation-1.jpg", in: rendering),
      targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit,
      options: ImageRequestOptions(deliveryMode: .opportunistic))
    {
      delivered.append(image.source)
    }
    #expect(delivered == [.embeddedThumbnail, .decodedImage])
  }

  @Test func aRotatedMovieGivesAPortraitFrame() async throws {
    let image = try await draw("portrait.mov", 64, 64)
    #expect(image.source == .videoFrame)
    #expect(image.pixelWidth == 48 && image.pixelHeight == 64)
  }

  @Test func aMovieThatFadesInGivesAFrameWithSomethingInIt() async throws {
    let image = try await draw("fade-in.mp4", 64, 64)
    #expect(image.source == .videoFrame)
    #expect(deviation(try pixels(image.data).pixels) > 20)
  }

  @Test func aShortBlackMovieWithOneKeyframeStillGivesAFrame() async throws {
    let image = try await draw("short-black.mp4", 32, 32)
    #expect(image.source == .videoFrame)
    #expect(image.pixelWidth == 32 && image.pixelHeight == 24)
    #expect(deviation(try pixels(image.data).pixels) < 5)
  }

  /// `Fixtures/Formats` (make-formats.sh): a DNG whose only picture is its first TIFF
  /// image (no JPEG preview), and one NTSC DV frame, as `vipsthumbnail` and `ffmpeg` draw
  /// them.
  let formats = AssetsLibrary(
    root: Sample.fixtures.url.appendingPathComponent("Formats"),
    options: LibraryOptions(pictureCache: .none))

  @Test func aDNGWithoutAJPEGPreviewIsDrawnFromItsFirstImage() async throws {
    let image = try await draw("reduced.dng", 24, 24, in: formats)
    #expect(image.source == .decodedImage)
    #expect(image.pixelWidth == 24 && image.pixelHeight == 16)
    // ImageMagick's red-to-blue gradient runs top to bottom: red above, blue below.
    let (pixels, width, height) = try pixels(image.data)
    let top = Array(pixels[0..<(width * 3)])
    let bottom = Array(pixels[((height - 1) * width * 3)...])
    #expect(top[0] > 200 && top[2] < 60, "\(top.prefix(3))")
    #expect(bottom[0] < 60 && bottom[2] > 200, "\(bottom.prefix(3))")
  }

  @Test func aCR3IsDrawnFromItsPreview() async throws {
    let scratch = try TemporaryFolder("ImageRenderingTests")
    let preview = try Sample.fixtures.bytes("Library/IMG_0002.jpg")
    let file = BoxBuilder.cr3(
      cmt1: nil, cmt2: nil, cmt4: nil,
      thumbnail: try Sample.fixtures.bytes("Library/IMG_0001.JPG"), preview: preview)
    try Data(file).write(to: scratch.root.appendingPathComponent("IMG_0001.CR3"))
    let library = AssetsLibrary(root: scratch.root, options: LibraryOptions(pictureCache: .none))
    let image = try await draw("IMG_0001.CR3", 80, 80, in: library)
    #expect(image.source == .embeddedPreview)
    #expect(image.pixelWidth == 80 && image.pixelHeight == 60)
    let stored = try await library.thumbnail(for: try await asset("IMG_0001.CR3", in: library))
    #expect(Array(stored.data) == preview)
  }

  @Test func aCamcorderDVFrameIsDrawn() async throws {
    let image = try await draw("camcorder.dv", 80, 80, in: formats)
    #expect(image.source == .videoFrame)
    #expect(image.pixelWidth == 80 && (50...60).contains(image.pixelHeight), "\(image.pixelHeight)")
    #expect(deviation(try pixels(image.data).pixels) > 20)
  }

  @Test func hostileFilesGiveTypedErrors() async throws {
    guard case .undecodable = try await failure("truncated.jpg") else {
      Issue.record("truncated.jpg: \(String(describing: try await failure("truncated.jpg")))")
      return
    }
    guard case .tooLarge(_, let reason) = try await failure("huge-claim.jpg") else {
      Issue.record("huge-claim.jpg: \(String(describing: try await failure("huge-claim.jpg")))")
      return
    }
    #expect(reason.contains("30000 x 30000"))
    // Under the pixel limit, but a progressive JPEG's scans would take ~576 MB.
    guard case .tooLarge(_, let whole) = try await failure("progressive-claim.jpg") else {
      Issue.record("progressive-claim.jpg")
      return
    }
    #expect(whole.contains("12000 x 8000 pixels whole"))
    guard case .noDecoder = try await failure("garbage.png") else {
      Issue.record("garbage.png")
      return
    }
  }

  /// libvips keeps one error text for the whole process, and a picture that draws can
  /// leave words in it (libjpeg's warning about bytes it skipped): the next picture that
  /// fails must give its own reason, not the warning of the picture drawn before it.
  @Test func aFailureGivesItsOwnReasonNotAWarningLeftByThePictureBefore() async throws {
    let progressive = try [UInt8](
      Data(contentsOf: Self.folder.appendingPathComponent("progressive.jpg")))
    let scan = try #require(
      progressive.indices.dropLast().first {
        progressive[$0] == 0xFF && progressive[$0 + 1] == 0xDA
      })
    let folder = try TemporaryFolder()
    // Seven bytes before the first scan: libjpeg warns and draws the picture.
    try folder.write(
      Array(progressive[..<scan]) + [UInt8](repeating: 0, count: 7) + progressive[scan...],
      as: "a-warns.jpg")
    // A second start-of-image marker: libjpeg refuses the file.
    try folder.write(Array(progressive[..<2]) + progressive, as: "b-fails.jpg")
    let library = AssetsLibrary(root: folder.root, options: LibraryOptions(pictureCache: .none))
    // Other tests draw in this process at the same time, and a failure of theirs at the
    // same moment can still lend this one its words (docs/Rendering.md): a reason that is
    // neither libjpeg's refusal nor the warning is tried again, a few times. The warning
    // itself is never excused.
    var reason = ""
    for _ in 0..<5 where !reason.contains("SOI") {
      let warned = try await draw("a-warns.jpg", 40, 40, in: library)
      #expect(max(warned.pixelWidth, warned.pixelHeight) == 40)
      guard case .undecodable(_, let text)? = try await failure("b-fails.jpg", in: library) else {
        Issue.record("b-fails.jpg drew, or failed otherwise")
        return
      }
      reason = text
      #expect(!reason.contains("extraneous"), "\(reason)")
    }
    #expect(reason.contains("SOI"), "\(reason)")
  }

  @Test(arguments: ["progressive.jpg", "interlaced.png"])
  func aProgressiveJPEGAndAnInterlacedPNGAreDrawn(name: String) async throws {
    let upright = try ImageRenderer.decodeRGB(
      Array(try Data(contentsOf: Self.folder.appendingPathComponent("upright.png"))))
    let drawn = try pixels(try await draw(name, 96, 64).data)
    #expect(drawn.width == 96 && drawn.height == 64)
    #expect(meanDifference(drawn.pixels, upright.pixels) < 4)
  }

  /// Small 8-bit pictures are written as PNG by the shim itself (each row filtered
  /// against the one above, then deflated by libdeflate, or by zlib where libdeflate
  /// cannot be loaded): grey, grey with alpha, RGB and RGBA, drawn at their own size,
  /// keep their layout (the PNG colour type) and every pixel, through either deflater.
  @Test(
    arguments: [
      ("grey.png", 0), ("grey-alpha.png", 4), ("upright.png", 2), ("rgba.png", 6),
    ], [true, false])
  func aPictureWrittenAsPNGKeepsItsLayoutAndEveryPixel(
    _ picture: (name: String, colourType: UInt8), libdeflate: Bool
  ) throws {
    let (name, colourType) = picture
    let bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    // This thread's choice only, and the call below stays on this thread (no await).
    let usesLibdeflate = CVipsShim_setPNGDeflater(libdeflate ? 1 : 0) == 1
    defer { _ = CVipsShim_setPNGDeflater(1) }
    // Debian's libvips loads it through libtiff: it is there wherever pictures are drawn.
    #expect(usesLibdeflate == libdeflate)
    let drawn = try ImageRenderer.draw(
      encoded: bytes,
      ImageRenderer.Request(
        width: 96, height: 64, contentMode: .aspectFit, orientation: 1, encoding: .png,
        jpegQuality: 90))
    let png = Array(drawn.data)
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    // IHDR: width, height, bit depth 8, then the colour type.
    #expect(png.count > 25 && Array(png[16..<25]) == [0, 0, 0, 96, 0, 0, 0, 64, 8])
    #expect(png.count > 25 && png[25] == colourType, "\(name)")
    let original = try ImageRenderer.decodeRGB(bytes)
    let decoded = try pixels(drawn.data)
    #expect(decoded.width == 96 && decoded.height == 64)
    #expect(decoded.pixels == original.pixels, "\(name)")
  }

  @Test(arguments: ["heif-irot.heic", "heif-imir.heic"])
  func heifRotationAndMirroringAreDrawnUpright(name: String) async throws {
    let upright = try ImageRenderer.decodeRGB(
      Array(try Data(contentsOf: Self.folder.appendingPathComponent("upright.png"))))
    let asset = try await asset(name, in: rendering)
    // The listing turns it too.
    #expect(asset.pixelWidth == 96 && asset.pixelHeight == 64)
    let image = try await draw(name, 96, 64)
    #expect(image.source == .decodedImage)
    let drawn = try pixels(image.data)
    #expect(drawn.width == 96 && drawn.height == 64)
    #expect(meanDifference(drawn.pixels, upright.pixels) < 4)
  }

  @Test func aCutMovieAndGarbageNamedMovGiveTypedErrors() async throws {
    for name in ["cut-movie.mp4", "garbage.mov"] {
      switch try await failure(name) {
      case .noDecoder?, .undecodable?: break
      case let other: Issue.record("\(name): \(String(describing: other))")
      }
    }
  }

  @Test func picturesDrawnAtOnceAreThoseDrawnOneByOne() async throws {
    let names = [
      "orientation-3.jpg", "orientation-6.jpg", "heif-irot.heic", "portrait.mov", "fade-in.mp4",
      "upright.png",
    ]
    var serial: [String: Data] = [:]
    for name in names { serial[name] = try await draw(name, 40, 40, .aspectFill).data }
    let assets = try await rendering.enumerate().assets
    let library = rendering
    let concurrent = try await withThrowingTaskGroup(of: (String, Data).self) { group in
      for _ in 0..<4 {
        for name in names {
          let asset = try #require(assets.first { $0.name == name })
          group.addTask {
            let image = try await library.image(
              for: asset, targetSize: CGSize(width: 40, height: 40), contentMode: .aspectFill)
            return (name, image.data)
          }
        }
      }
      var results: [(String, Data)] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(concurrent.count == names.count * 4)
    for (name, data) in concurrent { #expect(serial[name] == data, "\(name)") }
  }

  @Test func aCancelledRequestDrawsNothing() async throws {
    let asset = try await asset("orientation-1.jpg", in: rendering)
    let library = rendering
    let task = Task { () -> ImageRequestError? in
      withUnsafeCurrentTask { $0?.cancel() }
      do throws(ImageRequestError) {
        _ = try await library.image(
          for: asset, targetSize: CGSize(width: 80, height: 80), contentMode: .aspectFit)
        return nil
      } catch {
        return error
      }
    }
    #expect(await task.value == .library(.cancelled))
  }

  @Test func aTargetSizeOutOfRangeIsAnError() async throws {
    let asset = try await asset("orientation-1.jpg", in: rendering)
    for size in [
      CGSize(width: 0, height: 10), CGSize(width: 10, height: 20000),
      CGSize(width: Double.nan, height: 10), CGSize(width: -5, height: 10),
    ] {
      do throws(ImageRequestError) {
        _ = try await rendering.image(for: asset, targetSize: size, contentMode: .aspectFill)
        Issue.record("\(size) was drawn")
      } catch {
        guard case .invalidTargetSize = error else {
          Issue.record("\(size): \(error)")
          continue
        }
      }
    }
  }
}

/// The legacy shapes, on the modern API.
@Suite struct LegacyImageTests {
  let rendering = AssetsLibrary(
    root: ImageRenderingTests.folder, options: LibraryOptions(pictureCache: .none))

  func asset(_ name: String) async throws -> Asset {
    let assets = try await rendering.enumerate().assets
    return try #require(assets.first { $0.name == name })
  }

  @Test func thumbnailsAndTheFullScreenImageHaveTheirSizes() async throws {
    // orientation-6.jpg shows 96x64.
    let turned = try await asset("orientation-6.jpg")
    let square = try await rendering.thumbnailImage(for: turned)
    #expect(square.pixelWidth == 150 && square.pixelHeight == 150)
    let fitted = try await rendering.aspectRatioThumbnail(for: turned)
    #expect(fitted.pixelWidth == 150 && fitted.pixelHeight == 100)
    // Smaller than the screen: its own size, upright, decoded.
    let full = try await rendering.fullScreenImage(for: turned)
    #expect(full.pixelWidth == 96 && full.pixelHeight == 64)
    #expect(full.source == .decodedImage)
    // A movie turned a quarter: portrait.
    let movie = try await rendering.aspectRatioThumbnail(for: try await asset("portrait.mov"))
    #expect(movie.pixelWidth == 113 && movie.pixelHeight == 150)
  }

  @Test(arguments: [3, 6, 8]) func theFullResolutionImageIsStoredWithItsOrientation(
    orientation: Int
  ) async throws {
    let name = "orientation-\(orientation).jpg"
    let (image, given) = try await rendering.fullResolutionImage(for: try await asset(name))
    #expect(given == orientation)
    #expect(image.source == .decodedImage)
    // Every stored pixel, unturned (6 and 8 are stored 64x96), never enlarged to the
    // 16,384-pixel box it is drawn in.
    let quarter = orientation >= 5
    #expect(image.pixelWidth == (quarter ? 64 : 96) && image.pixelHeight == (quarter ? 96 : 64))
    #expect(!image.isPNG)
    // Unturned: the file's own pixels, decoded without turning, are the same picture...
    let stored = try ImageRenderer.draw(
      encoded: Array(try Data(contentsOf: ImageRenderingTests.folder.appendingPathComponent(name))),
      ImageRenderer.Request(
        width: image.pixelWidth, height: image.pixelHeight, contentMode: .aspectFit,
        orientation: 1, encoding: .png, jpegQuality: 90))
    let drawn = try ImageRenderer.decodeRGB(Array(image.data))
    let storedPixels = try ImageRenderer.decodeRGB(Array(stored.data))
    #expect(drawn.width == storedPixels.width && drawn.height == storedPixels.height)
    #expect(meanDifference(drawn.pixels, storedPixels.pixels) < 4)
    // ... and the orientation given turns it upright.
    let upright = try ImageRenderer.decodeRGB(
      Array(
        try Data(contentsOf: ImageRenderingTests.folder.appendingPathComponent("upright.png"))))
    let turned = try ImageRenderer.draw(
      encoded: Array(image.data),
      ImageRenderer.Request(
        width: 96, height: 64, contentMode: .aspectFit, orientation: given, encoding: .png,
        jpegQuality: 90))
    let turnedPixels = try ImageRenderer.decodeRGB(Array(turned.data))
    #expect(turnedPixels.width == 96 && turnedPixels.height == 64)
    #expect(meanDifference(turnedPixels.pixels, upright.pixels) < 4)
    // Unturned is far from upright (3: upside down).
    if orientation == 3 { #expect(meanDifference(drawn.pixels, upright.pixels) > 40) }
  }

  @Test func theFullResolutionImageOfAMovieIsItsFrameUpright() async throws {
    let (image, orientation) = try await rendering.fullResolutionImage(
      for: try await asset("portrait.mov"))
    #expect(orientation == 1)
    #expect(image.source == .videoFrame)
    #expect(image.pixelWidth < image.pixelHeight)
  }

  /// The mean absolute difference of two same-sized RGB pictures, 0…255.
  private func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var total = 0
    for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
    return Double(total) / Double(a.count)
  }
}
