import Foundation

/// A picture as the picture cache stores it: PNG bytes and their pixel size.
package struct StoredPicture: Sendable, Hashable {
  package let bytes: [UInt8]
  package let width: Int
  package let height: Int
}

extension AssetsLibrary {
  /// What the picture cache holds for one asset: the cache, the file's key, and a valid
  /// entry covering the request or a valid failure entry, when there is one.
  struct CacheLookup: Sendable {
    var cache: PictureCache
    var key: PictureCache.Key
    var entry: PictureCache.Entry?
    var failure: ImageRequestError?
    /// The size a new entry is drawn at.
    var size: PictureCache.Size
  }

  /// The picture of `asset` through the picture cache (``LibraryOptions/pictureCache``):
  /// drawn from a valid entry that covers the box; else (after the embedded thumbnail,
  /// with ``ImageDeliveryMode/fastFormat``, when it covers the box) a new entry is drawn
  /// from the file, stored, and the picture drawn from it, so that a miss and a later hit
  /// give the same picture. A valid failure entry gives back the error it records.
  ///
  /// - Returns: `nil` when the cache does not apply: none is set or it is inside the
  ///   library, the box needs more than 1024 pixels, the asset's picture comes from a part
  ///   of a file, or the file is gone.
  func cachedImage(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode,
    _ options: ImageRequestOptions
  ) async throws(ImageRequestError) -> AssetImage? {
    guard let lookup = try await lookUpCache(for: asset, box, contentMode) else { return nil }
    let name = lookup.key.fileName
    if let entry = lookup.entry {
      do throws(ImageRequestError) {
        return try await Self.offload { () throws(ImageRequestError) in
          try Self.draw(
            entry.bytes, name: name, box, contentMode, options, orientation: 1,
            source: .thumbnailCache)
        }
      } catch {
        // An entry libvips cannot decode is corrupt: drawn again below.
        if case .library = error { throw error }
      }
    }
    if options.deliveryMode == .fastFormat,
      let fast = try await embeddedImage(for: asset, box, contentMode, options, mustCover: true)
    {
      return fast
    }
    if let failure = lookup.failure { throw failure }
    let made = try await makeCacheEntry(for: asset, lookup)
    guard
      Self.covers(made.width, made.height, size: lookup.size, box, contentMode, asset: asset)
    else { return nil }
    return try await Self.offload { () throws(ImageRequestError) in
      try Self.draw(
        made.bytes, name: name, box, contentMode, options, orientation: 1, source: made.source)
    }
  }

  /// The picture cache's valid entry for `asset` that fits a `side` × `side` box
  /// (aspect-fit) with no pixel enlarged, as it is stored: PNG bytes checked (structure,
  /// CRCs, the file's URI, modification time and size) but not decoded, for a caller that
  /// hands them on as they are (the Demo's page, to a browser); `nil` when there is none,
  /// or the cache does not apply.
  package func storedPicture(for asset: Asset, fitting side: Int) async -> StoredPicture? {
    guard (1...PictureCache.Size.xxLarge.rawValue).contains(side),
      let lookup = try? await lookUpCache(for: asset, (side, side), .aspectFit),
      let entry = lookup.entry
    else { return nil }
    return StoredPicture(bytes: entry.bytes, width: entry.width, height: entry.height)
  }

  /// The picture cache's entry for `asset` that fits a `side` × `side` box, as
  /// ``storedPicture(for:fitting:)`` gives it, drawn from the file and stored first when
  /// there is none; `nil` when the cache does not apply.
  ///
  /// - Throws: ``ImageRequestError`` when the file cannot be drawn (it then gets a failure
  ///   entry, whose error later calls throw again).
  package func makeStoredPicture(for asset: Asset, fitting side: Int)
    async throws(ImageRequestError) -> StoredPicture?
  {
    guard (1...PictureCache.Size.xxLarge.rawValue).contains(side),
      let lookup = try await lookUpCache(for: asset, (side, side), .aspectFit)
    else { return nil }
    if let entry = lookup.entry {
      return StoredPicture(bytes: entry.bytes, width: entry.width, height: entry.height)
    }
    if let failure = lookup.failure { throw failure }
    let made = try await makeCacheEntry(for: asset, lookup)
    guard
      Self.covers(
        made.width, made.height, size: lookup.size, (side, side), .aspectFit, asset: asset)
    else { return nil }
    return StoredPicture(bytes: made.bytes, width: made.width, height: made.height)
  }

  /// Draws and stores the cache entry a request for `asset` in the box would use, unless
  /// a valid one (or a valid failure entry) is there already (``CachingImageManager``).
  ///
  /// - Returns: Whether the cache applies to the request (see
  ///   ``cachedImage(for:_:_:_:)``).
  @discardableResult
  func fillCache(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode
  ) async throws(ImageRequestError) -> Bool {
    guard let lookup = try await lookUpCache(for: asset, box, contentMode) else { return false }
    if lookup.entry == nil, lookup.failure == nil {
      _ = try await makeCacheEntry(for: asset, lookup)
    }
    return true
  }

  /// Finds the cache entries of `asset`'s file for the box, from the smallest size that
  /// can cover it upwards.
  private func lookUpCache(
    for asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode
  ) async throws(ImageRequestError) -> CacheLookup? {
    let location = options.pictureCache
    guard location != .none, let resource = Self.cachedResource(of: asset),
      let size = PictureCache.Size.smallest(atLeast: Self.neededSide(asset, box, contentMode))
    else { return nil }
    let rootPath = self.rootPath
    let environment = PictureCache.environment
    return try await Self.offload { () throws(ImageRequestError) -> CacheLookup? in
      let root: LibraryRoot
      do throws(LibraryError) {
        root = try LibraryRoot(path: rootPath)
      } catch {
        throw .library(error)
      }
      guard let cache = PictureCache.resolve(location, root: root, environment: environment),
        let key = cache.key(for: resource.path, root: root)
      else { return nil }
      for candidate in PictureCache.Size.allCases where candidate >= size {
        if let entry = cache.entry(key, size: candidate),
          Self.covers(entry.width, entry.height, size: candidate, box, contentMode, asset: asset)
        {
          return CacheLookup(cache: cache, key: key, entry: entry, failure: nil, size: size)
        }
      }
      return CacheLookup(
        cache: cache, key: key, entry: nil, failure: cache.failure(key), size: size)
    }
  }

  /// Draws the entry of `lookup.size` from the file (aspect-fit, never enlarged past the
  /// asset's size when the listing knows it; PNG) and stores it; a file that cannot be
  /// drawn gets a failure entry.
  private func makeCacheEntry(for asset: Asset, _ lookup: CacheLookup)
    async throws(ImageRequestError) -> (
      bytes: [UInt8], width: Int, height: Int, source: AssetImage.Source
    )
  {
    var side = lookup.size.rawValue
    if let width = asset.pixelWidth, let height = asset.pixelHeight, width > 0, height > 0 {
      side = min(side, max(width, height))
    }
    let drawn: AssetImage
    do throws(ImageRequestError) {
      // An embedded thumbnail that covers the entry (turned, with the image's shape, as
      // `fastFormat` takes one) makes it without decoding the image: a camera JPEG's
      // 160 × 120 thumbnail makes its `normal` entry.
      let options = ImageRequestOptions(deliveryMode: .highQualityFormat, encoding: .png)
      if let embedded = try? await embeddedImage(
        for: asset, (side, side), .aspectFit, options, mustCover: true)
      {
        drawn = embedded
      } else {
        drawn = try await drawnImage(for: asset, (side, side), .aspectFit, options)
      }
    } catch {
      let cache = lookup.cache
      let key = lookup.key
      _ = try? await Self.offload { () throws(ImageRequestError) in
        cache.storeFailure(error, key: key)
      }
      throw error
    }
    let bytes = Array(drawn.data)
    let cache = lookup.cache
    let key = lookup.key
    let size = lookup.size
    try await Self.offload { () throws(ImageRequestError) in
      cache.store(bytes, key: key, size: size)
    }
    return (bytes, drawn.pixelWidth, drawn.pixelHeight, drawn.source)
  }

  /// The file a picture of `asset` is cached under: the still (a Live Photo's, a motion
  /// photo's JPEG), else the movie; `nil` when that is a part of a file (a motion photo's
  /// embedded movie), which has no URI of its own.
  static func cachedResource(of asset: Asset) -> AssetResource? {
    let resource =
      still(of: asset) ?? asset.resources.first { $0.role == .video }
      ?? asset.resources.first { $0.role == .photo }
    guard let resource, resource.byteRange == nil else { return nil }
    return resource
  }

  /// The longest side an entry must have to draw the box without enlarging: the side of
  /// the asset's picture scaled to fit (aspect-fit) or to cover (aspect-fill) the box,
  /// at most the asset's own longest side (an entry holding every pixel covers any box);
  /// the box's longest side when the listing does not know the asset's size.
  static func neededSide(
    _ asset: Asset, _ box: (width: Int, height: Int), _ contentMode: ImageContentMode
  ) -> Int {
    guard let width = asset.pixelWidth, let height = asset.pixelHeight, width > 0, height > 0
    else { return max(box.width, box.height) }
    let scaleX = Double(box.width) / Double(width)
    let scaleY = Double(box.height) / Double(height)
    let scale = contentMode == .aspectFit ? min(scaleX, scaleY) : max(scaleX, scaleY)
    let longest = max(width, height)
    let side = (Double(longest) * scale).rounded(.up)
    return side >= Double(longest) ? longest : Int(side)
  }

  /// Whether an entry of `width` × `height` in the folder of `size` draws the box without
  /// enlarging by more than 2 % (rounding), or holds the asset's every pixel.
  static func covers(
    _ width: Int, _ height: Int, size: PictureCache.Size, _ box: (width: Int, height: Int),
    _ contentMode: ImageContentMode, asset: Asset
  ) -> Bool {
    guard width > 0, height > 0 else { return false }
    let scaleX = Double(box.width) / Double(width)
    let scaleY = Double(box.height) / Double(height)
    let scale = contentMode == .aspectFit ? min(scaleX, scaleY) : max(scaleX, scaleY)
    if scale <= 1.02 { return true }
    let longest = max(width, height)
    if let assetWidth = asset.pixelWidth, let assetHeight = asset.pixelHeight, assetWidth > 0,
      assetHeight > 0
    {
      return longest >= max(assetWidth, assetHeight) - 1
    }
    // An entry smaller than its folder's size was not shrunk: it is the whole picture.
    return longest < size.rawValue
  }
}
