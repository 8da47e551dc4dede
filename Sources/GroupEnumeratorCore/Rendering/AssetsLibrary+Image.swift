import Dispatch
import FoundationEssentials

extension AssetsLibrary {
  /// ``image(for:targetSize:contentMode:options:)`` (in the `GroupEnumerator` module,
  /// for its `CGSize`) with the target size as two numbers, in pixels.
  package func image(
    for asset: Asset, width: Double, height: Double, contentMode: ImageContentMode,
    options: ImageRequestOptions = ImageRequestOptions()
  ) async throws(ImageRequestError) -> AssetImage {
    try await image(
      for: asset, box: try Self.box(width: width, height: height), contentMode, options)
  }

  /// ``image(for:targetSize:contentMode:options:)`` at a box already checked.
  private func image(
    for asset: Asset, box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions
  ) async throws(ImageRequestError) -> AssetImage {
    if let cached = try await cachedImage(for: asset, box, contentMode, options) {
      return cached
    }
    if options.deliveryMode == .fastFormat,
      let fast = try await embeddedImage(for: asset, box, contentMode, options, mustCover: true)
    {
      return fast
    }
    return try await drawnImage(for: asset, box, contentMode, options)
  }

  /// ``images(for:targetSize:contentMode:options:)`` (in the `GroupEnumerator` module,
  /// for its `CGSize`) with the target size as two numbers, in pixels.
  package func images(
    for asset: Asset, width: Double, height: Double, contentMode: ImageContentMode,
    options: ImageRequestOptions = ImageRequestOptions()
  ) -> AsyncThrowingStream<AssetImage, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do throws(ImageRequestError) {
          let box = try Self.box(width: width, height: height)
          if options.deliveryMode == .opportunistic {
            if let fast = try await embeddedImage(
              for: asset, box, contentMode, options, mustCover: false)
            {
              continuation.yield(fast)
              // A RAW's decoded picture is that same preview: one is enough.
              if fast.source == .embeddedPreview {
                continuation.finish()
                return
              }
            }
          }
          continuation.yield(try await image(for: asset, box: box, contentMode, options))
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The target size in whole pixels, checked: 1…``ImageRenderer/maximumSide`` a side,
  /// fractions rounded up.
  static func box(width: Double, height: Double) throws(ImageRequestError) -> (
    width: Int, height: Int
  ) {
    let limit = Double(ImageRenderer.maximumSide)
    let width = width.rounded(.up)
    let height = height.rounded(.up)
    guard width >= 1, width <= limit, height >= 1, height <= limit else {
      throw .invalidTargetSize(
        width: width.isFinite ? Int(max(min(width, 1e9), -1e9)) : 0,
        height: height.isFinite ? Int(max(min(height, 1e9), -1e9)) : 0)
    }
    return (Int(width), Int(height))
  }

  /// The still an asset is drawn from: a photo's or Live Photo's image (a motion photo's
  /// JPEG), else `nil` for a movie.
  static func still(of asset: Asset) -> AssetResource? {
    guard asset.type != .video else { return nil }
    return asset.resources.first { $0.role == .photo && $0.format?.isVideo != true }
  }

  /// The embedded thumbnail or preview drawn at the box, or `nil` when the file has none
  /// (or, with `mustCover`, none that covers the box without enlarging, or one whose
  /// shape differs from the image's: a letterboxed thumbnail).
  func embeddedImage(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions, mustCover: Bool
  ) async throws(ImageRequestError) -> AssetImage? {
    guard let still = Self.still(of: asset), still.format != nil else { return nil }
    let embedded: AssetThumbnail
    do throws(ThumbnailError) {
      embedded = try await thumbnail(for: asset)
    } catch {
      switch error {
      case .library(let error): throw .library(error)
      // A thumbnail reader's complaint (exiv2 refusing the file) leaves the decoder to
      // try; a file that cannot be opened at all fails there too.
      case .unreadable, .noEmbeddedThumbnail: return nil
      }
    }
    let orientation = asset.metadata.orientation ?? 1
    let quarter = (5...8).contains(orientation)
    let source: AssetImage.Source = still.format == .raw ? .embeddedPreview : .embeddedThumbnail
    if mustCover {
      guard let storedWidth = embedded.pixelWidth, let storedHeight = embedded.pixelHeight,
        storedWidth > 0, storedHeight > 0
      else { return nil }
      let width = Double(quarter ? storedHeight : storedWidth)
      let height = Double(quarter ? storedWidth : storedHeight)
      let scaleX = Double(box.width) / width
      let scaleY = Double(box.height) / height
      let scale = contentMode == .aspectFit ? min(scaleX, scaleY) : max(scaleX, scaleY)
      guard scale <= 1 else { return nil }
      // A RAW's preview is its only picture; another file's thumbnail must have the
      // image's shape (some cameras letterbox a 16:9 picture into a 4:3 thumbnail).
      if still.format != .raw, let imageWidth = asset.pixelWidth,
        let imageHeight = asset.pixelHeight,
        imageWidth > 0, imageHeight > 0
      {
        let ratio = (width / height) / (Double(imageWidth) / Double(imageHeight))
        guard abs(ratio - 1) < 0.02 else { return nil }
      }
      if options.resizeMode == .fast, orientation == 1, options.encoding != .png {
        return AssetImage(
          data: embedded.data, isPNG: false, pixelWidth: storedWidth, pixelHeight: storedHeight,
          source: source)
      }
    }
    let name = still.name
    return try await Self.offload { () throws(ImageRequestError) in
      try Self.draw(
        Array(embedded.data), name: name, box, contentMode, options, orientation: orientation,
        source: source)
    }
  }

  /// The picture drawn from the file itself: the decoded still (for a RAW, its embedded
  /// preview, else its first TIFF image when libvips reads it; for a file no decoder
  /// takes, its embedded thumbnail), or a movie's frame.
  func drawnImage(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions
  ) async throws(ImageRequestError) -> AssetImage {
    guard let still = Self.still(of: asset) else {
      return try await videoFrame(for: asset, box, contentMode, options)
    }
    guard let format = still.format else {
      throw .noDecoder(name: still.name, reason: "its content is no known image format")
    }
    if format == .raw {
      if let preview = try await embeddedImage(
        for: asset, box, contentMode, options, mustCover: false)
      {
        return preview
      }
      // No JPEG preview: a DNG (and a TIFF-based RAW) may keep a reduced-resolution
      // picture as its first image, which libvips's TIFF loader reads, as `vipsthumbnail`
      // does; the RAW's sensor data itself (a CFA or linear raw image) is read by no
      // allowed decoder here, and is refused.
      do throws(ImageRequestError) {
        return try await decodedImage(of: still, box, contentMode, options)
      } catch {
        switch error {
        case .library, .unreadable, .tooLarge, .decoderUnavailable: throw error
        default:
          throw .noDecoder(
            name: still.name,
            reason: "camera RAWs are drawn from their embedded preview, and it has none")
        }
      }
    }
    // A still cut short would draw grey below the cut (libvips's decoders do not refuse
    // it): refused, as the listing reports it.
    if asset.type == .photo, asset.problems.contains(where: { $0.code == .truncated }) {
      throw .undecodable(name: still.name, reason: "the file is cut short")
    }
    do throws(ImageRequestError) {
      return try await decodedImage(of: still, box, contentMode, options)
    } catch {
      // A format libvips does not read here (BMP, PSD) may still embed a thumbnail.
      guard case .noDecoder = error,
        let embedded = try await embeddedImage(
          for: asset, box, contentMode, options, mustCover: false)
      else { throw error }
      return embedded
    }
  }

  /// The picture of `still` decoded from its file's bytes by libvips.
  private func decodedImage(
    of still: AssetResource, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions
  ) async throws(ImageRequestError) -> AssetImage {
    let drawn = try await Self.offload {
      () throws(ImageRequestError) -> Result<AssetImage, ImageRenderer.Failure> in
      let bytes = try self.readWhole(still)
      do throws(ImageRenderer.Failure) {
        let picture = try ImageRenderer.draw(
          encoded: bytes,
          ImageRenderer.Request(
            width: box.width, height: box.height, contentMode: contentMode,
            orientation: options.isAsStored ? 1 : nil, encoding: options.encoding,
            jpegQuality: options.jpegQuality, shrinkOnly: options.isAsStored))
        return .success(
          AssetImage(
            data: picture.data, isPNG: picture.isPNG, pixelWidth: picture.width,
            pixelHeight: picture.height, source: .decodedImage))
      } catch {
        return .failure(error)
      }
    }
    do throws(ImageRenderer.Failure) {
      return try drawn.get()
    } catch {
      throw error.error(name: still.name)
    }
  }

  /// Runs blocking decoder work on a Dispatch thread, so that a picture taking a second
  /// does not hold one of the few threads Swift's concurrency runs every task on.
  ///
  /// - Parameters:
  ///   - returningMemory: Whether memory freed is handed back to the system afterwards
  ///     (`malloc_trim`, which walks every arena: worth it after a decode, not after a
  ///     cache lookup).
  ///   - work: The work.
  /// - Throws: ``LibraryError/cancelled`` (as ``ImageRequestError/library(_:)``) when the
  ///   task is cancelled before the work starts, else what `work` throws.
  static func offload<Value: Sendable>(
    returningMemory: Bool = true,
    _ work: @escaping @Sendable () throws(ImageRequestError) -> Value
  ) async throws(ImageRequestError) -> Value {
    if Task.isCancelled { throw .library(.cancelled) }
    let result: Result<Value, ImageRequestError> = await withCheckedContinuation {
      continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        let result: Result<Value, ImageRequestError>
        do throws(ImageRequestError) {
          result = .success(try work())
        } catch {
          result = .failure(error)
        }
        // The work's buffers (the file's bytes, the decoder's) are freed by now.
        if returningMemory { ImageRenderer.returnFreedMemory() }
        continuation.resume(returning: result)
      }
    }
    return try result.get()
  }

  /// Draws encoded bytes cut out of a file (a thumbnail or preview), turned by
  /// `orientation`.
  static func draw(
    _ bytes: [UInt8], name: String, _ box: (width: Int, height: Int),
    _ contentMode: ImageContentMode, _ options: ImageRequestOptions, orientation: Int,
    source: AssetImage.Source
  ) throws(ImageRequestError) -> AssetImage {
    do throws(ImageRenderer.Failure) {
      let picture = try ImageRenderer.draw(
        encoded: bytes,
        ImageRenderer.Request(
          width: box.width, height: box.height, contentMode: contentMode,
          orientation: options.isAsStored ? 1 : orientation, encoding: options.encoding,
          jpegQuality: options.jpegQuality, shrinkOnly: options.isAsStored))
      return AssetImage(
        data: picture.data, isPNG: picture.isPNG, pixelWidth: picture.width,
        pixelHeight: picture.height, source: source)
    } catch {
      throw error.error(name: name)
    }
  }

  /// The bytes of a resource (its part of the file, for a part), at most
  /// ``ImageRenderer/maximumFileSize``.
  private func readWhole(_ resource: AssetResource) throws(ImageRequestError) -> [UInt8] {
    let root: LibraryRoot
    do throws(LibraryError) {
      root = try LibraryRoot(path: rootPath)
    } catch {
      throw .library(error)
    }
    let limit = ImageRenderer.maximumFileSize
    let bytes: [UInt8]?
    do throws(AssetProblem) {
      // `nil`: the file is over the limit, and nothing was read.
      bytes = try LibraryFile.withOpened(root: root, path: resource.path) {
        file throws(AssetProblem) -> [UInt8]? in
        let range =
          resource.byteRange.map {
            Int(clamping: $0.lowerBound)..<Int(clamping: max($0.lowerBound, $0.upperBound))
          } ?? 0..<file.count
        guard range.count <= limit else { return nil }
        return try file.bytes(at: range.lowerBound, length: range.count)
      }
    } catch {
      throw .unreadable(error)
    }
    guard let bytes else {
      throw .tooLarge(name: resource.name, reason: "the file is larger than \(limit >> 20) MiB")
    }
    return bytes
  }

  /// A movie's representative frame (see ``VideoFrameReader``), turned by its track's
  /// rotation and drawn at the box.
  private func videoFrame(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions
  ) async throws(ImageRequestError) -> AssetImage {
    // A movie, or a "photo" whose content is a movie (misnamed).
    guard
      let movie = asset.resources.first(where: { $0.role == .video })
        ?? asset.resources.first(where: { $0.role == .photo && $0.format?.isVideo == true })
    else {
      throw .noDecoder(name: asset.name, reason: "it has no movie file")
    }
    let root: LibraryRoot
    do throws(LibraryError) {
      root = try LibraryRoot(path: rootPath)
    } catch {
      throw .library(error)
    }
    // Enough pixels for the box whichever way the frame is turned or cropped.
    let shortSide = max(box.width, box.height)
    let result = try await Self.offload {
      () throws(ImageRequestError) -> Result<VideoFrameReader.Frame, ImageRenderer.Failure> in
      try Self.readFrame(of: movie, root: root, shortSide: shortSide)
    }
    do throws(ImageRenderer.Failure) {
      let frame = try result.get()
      let picture = try ImageRenderer.draw(
        rgb: frame.pixels, width: frame.width, height: frame.height,
        ImageRenderer.Request(
          width: box.width, height: box.height, contentMode: contentMode,
          orientation: frame.orientation, encoding: options.encoding,
          jpegQuality: options.jpegQuality, shrinkOnly: options.isAsStored))
      return AssetImage(
        data: picture.data, isPNG: picture.isPNG, pixelWidth: picture.width,
        pixelHeight: picture.height, source: .videoFrame)
    } catch {
      throw error.error(name: movie.name)
    }
  }

  /// The representative frame of `movie`, read beneath `root`.
  private static func readFrame(of movie: AssetResource, root: LibraryRoot, shortSide: Int)
    throws(ImageRequestError) -> Result<VideoFrameReader.Frame, ImageRenderer.Failure>
  {
    do throws(AssetProblem) {
      return try LibraryFile.withOpened(root: root, path: movie.path) {
        file throws(AssetProblem) -> Result<VideoFrameReader.Frame, ImageRenderer.Failure> in
        let range =
          movie.byteRange.map {
            Int(clamping: $0.lowerBound)..<Int(clamping: max($0.lowerBound, $0.upperBound))
          } ?? 0..<file.count
        guard !range.isEmpty, range.upperBound <= file.count else {
          return .failure(.failed("the file is empty"))
        }
        do throws(ImageRenderer.Failure) {
          return .success(try VideoFrameReader.frame(of: file, range: range, shortSide: shortSide))
        } catch {
          return .failure(error)
        }
      }
    } catch {
      throw .unreadable(error)
    }
  }
}
