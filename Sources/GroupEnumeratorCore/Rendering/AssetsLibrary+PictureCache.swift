import FoundationEssentials

/// A picture as the picture cache stores it: PNG bytes and their pixel size.
package struct StoredPicture: Sendable, Hashable {
  package let bytes: [UInt8]
  package let width: Int
  package let height: Int

  package init(bytes: [UInt8], width: Int, height: Int) {
    self.bytes = bytes
    self.width = width
    self.height = height
  }
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
  /// (aspect-fit) with no pixel enlarged, as it is stored, for a caller that hands the
  /// bytes on as they are (the Demo's page, to a browser); `nil` when there is none, or
  /// the cache does not apply. What is checked: ``StoredPictureReader``.
  package func storedPicture(for asset: Asset, fitting side: Int) async -> StoredPicture? {
    let library = self
    return try? await Self.offload(returningMemory: false) {
      () throws(ImageRequestError) -> StoredPicture? in
      StoredPictureReader(library: library)?.picture(for: asset, fitting: side)
    }
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
    return try await Self.offload(returningMemory: false) {
      () throws(ImageRequestError) -> CacheLookup? in
      let root: LibraryRoot
      do throws(LibraryError) {
        root = try LibraryRoot(path: rootPath)
      } catch {
        throw .library(error)
      }
      guard let cache = PictureCache.resolve(location, root: root, environment: environment),
        let key = cache.key(for: resource.path, root: root)
      else { return nil }
      if let entry = cache.coveringEntry(key, from: size, box, contentMode, asset: asset) {
        return CacheLookup(cache: cache, key: key, entry: entry, failure: nil, size: size)
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

/// Reads the picture cache's entries of one library's files one after another, to hand
/// them on as they are stored (the Demo's page copies them beside its HTML): the library
/// folder is opened and the cache resolved once, not for each picture. Its calls block on
/// file reads: make them off Swift's concurrency threads (a batch at a time).
///
/// An entry handed on is checked as every entry is (a PNG's signature, a 13-byte `IHDR`
/// first, every chunk within the file, an `IEND`, at most 4,096 chunks; its `Thumb::URI`,
/// `Thumb::MTime` and `Thumb::Size` those of the file now; no larger than its folder's
/// size), and the CRC of every chunk but the image data (`IDAT`). The image data is not
/// decoded here, so its CRCs are left to whoever decodes it: a browser checks the
/// deflate stream's own Adler-32. A damaged entry is thus never handed on as another
/// file's or a stale picture, and one that is cut short or malformed never at all; one
/// whose image data alone is damaged shows as a damaged picture, and is redrawn by the
/// next ``AssetsLibrary/image(for:targetSize:contentMode:options:)`` that reads it.
package struct StoredPictureReader: Sendable {
  let cache: PictureCache
  let root: LibraryRoot

  /// A reader of `library`'s picture cache; `nil` when it has none (or one inside the
  /// library), or its folder cannot be opened.
  package init?(library: AssetsLibrary) {
    guard library.options.pictureCache != .none,
      let root = try? LibraryRoot(path: library.rootPath),
      let cache = PictureCache.resolve(
        library.options.pictureCache, root: root, environment: PictureCache.environment)
    else { return nil }
    self.cache = cache
    self.root = root
  }

  /// The valid entry of `asset` that fits a `side` × `side` box (aspect-fit) with no
  /// pixel enlarged, as it is stored; `nil` when there is none or the cache does not
  /// apply (a picture of a part of a file, a side past 1024).
  package func picture(for asset: Asset, fitting side: Int) -> StoredPicture? {
    withPicture(for: asset, fitting: side) { picture, _ in picture }
  }

  /// Calls `body` with the valid entry of `asset` that fits a `side` × `side` box, as
  /// ``picture(for:fitting:)`` finds it, and the entry's file, open read-only during the
  /// call (a raw descriptor: a caller may link that very file elsewhere through
  /// `/proc/self/fd`, rather than copy the bytes); `nil` when there is none.
  package func withPicture<Value, Failure: Error>(
    for asset: Asset, fitting side: Int, folders: FolderCursor? = nil,
    _ body: (StoredPicture, _ descriptor: Int32) throws(Failure) -> Value
  ) throws(Failure) -> Value? {
    let box = (width: side, height: side)
    guard (1...PictureCache.Size.xxLarge.rawValue).contains(side),
      let resource = AssetsLibrary.cachedResource(of: asset),
      let size = PictureCache.Size.smallest(
        atLeast: AssetsLibrary.neededSide(asset, box, .aspectFit)),
      let key = key(for: resource.path, folders: folders)
    else { return nil }
    for candidate in PictureCache.Size.allCases where candidate >= size {
      guard let (entry, file) = cache.openEntry(key, size: candidate, checksImageData: false)
      else { continue }
      defer { file.close() }
      guard
        AssetsLibrary.covers(
          entry.width, entry.height, size: candidate, box, .aspectFit, asset: asset)
      else { continue }
      return try body(
        StoredPicture(bytes: entry.bytes, width: entry.width, height: entry.height),
        file.rawValue)
    }
    return nil
  }
}

extension StoredPictureReader {
  /// A cursor for a run of lookups on one thread (``withPicture(for:fitting:folders:_:)``):
  /// each file is examined relative to its folder, kept open.
  package func folderCursor() -> FolderCursor {
    FolderCursor(root: root)
  }

  /// The key of the file at `path` as it is now, through `folders` when given.
  fileprivate func key(for path: LibraryPath, folders: FolderCursor?) -> PictureCache.Key? {
    guard let folders else { return cache.key(for: path, root: root) }
    return folders.lookUp(
      path,
      inFolder: { folder, name in
        cache.key(for: path, status: (try? folder.statusRecord(ofEntry: name)).map(FileStatus.init))
      },
      fromRoot: { cache.key(for: path, root: root) })
  }
}

extension PictureCache {
  /// The first valid entry of `key`, from `size` upwards, that draws the box without
  /// enlarging (``AssetsLibrary/covers(_:_:size:_:_:asset:)``).
  func coveringEntry(
    _ key: Key, from size: Size, _ box: (width: Int, height: Int),
    _ contentMode: ImageContentMode, asset: Asset
  ) -> Entry? {
    for candidate in Size.allCases where candidate >= size {
      if let entry = entry(key, size: candidate),
        AssetsLibrary.covers(
          entry.width, entry.height, size: candidate, box, contentMode, asset: asset)
      {
        return entry
      }
    }
    return nil
  }
}
