public import FoundationEssentials

/// One file of an asset as stored: its name, size, type, pixel size, metadata, and bytes.
///
/// This is what `ALAssetRepresentation` described on iOS. A photo or a video has one
/// representation; a Live Photo has two, the still (its default representation) and the
/// paired movie. Get them from ``AssetsLibrary/defaultRepresentation(for:)`` and
/// ``AssetsLibrary/representations(for:)``.
///
/// The representation keeps the library's root folder open, so ``getBytes(into:fromOffset:length:)``
/// reads the file beneath that folder even if the root's path is renamed meanwhile. Every
/// read opens the file afresh (never following a symbolic link), reads with bounded
/// `pread` calls and closes it; nothing is mapped into memory.
public final class AssetRepresentation: Sendable {
  /// The asset this is a representation of.
  public let assetURL: URL
  /// The file's path relative to the library root.
  public let path: LibraryPath
  /// The file name (`IMG_0001.JPG`), for display (`ALAssetRepresentation.filename`).
  public let filename: String
  /// The file's size in bytes when the library was read (`size`); for a part of a file
  /// (``byteRange``), the part's length.
  public let size: Int64
  /// Which bytes of the file this representation is, when it is a part of it: the video
  /// inside a motion photo's still. ``getBytes(into:fromOffset:length:)`` then reads that
  /// part only, its offsets counted from the part's first byte. `nil` for a whole file.
  public let byteRange: Range<Int64>?
  /// The content format, when recognised.
  public let format: MediaFormat?
  /// Apple's uniform type identifier of the file: `public.jpeg`, `public.heic`,
  /// `com.adobe.raw-image`, `com.apple.quicktime-movie`, … (`UTI`); `public.data` when
  /// the format is not recognised.
  public let uniformTypeIdentifier: String
  /// The width as displayed (orientation applied), when known (`dimensions.width`).
  public let pixelWidth: Int?
  /// The height as displayed (orientation applied), when known (`dimensions.height`).
  public let pixelHeight: Int?
  /// The EXIF orientation, 1…8; 1 when the file records none (`orientation`).
  public let orientation: Int
  /// What the metadata reader found in this file (for a Live Photo's movie, the movie's
  /// own). ``metadata`` is the same under ImageIO's key names.
  public let mediaMetadata: MediaMetadata

  /// The open root folder every read goes through.
  private let root: LibraryRoot

  init(asset: Asset, resource: AssetResource, metadata: MediaMetadata, root: LibraryRoot) {
    self.assetURL = asset.url
    self.path = resource.path
    self.filename = resource.name
    self.size = resource.fileSize
    self.byteRange = resource.byteRange
    self.format = resource.format
    self.uniformTypeIdentifier = UniformTypeIdentifier.identifier(
      format: resource.format, fileExtension: resource.path.fileExtension)
    self.pixelWidth = metadata.displayedWidth
    self.pixelHeight = metadata.displayedHeight
    self.orientation = metadata.orientation ?? 1
    self.mediaMetadata = metadata
    self.root = root
  }

  /// Copies bytes of the file, as stored, into `buffer` (`getBytes:fromOffset:length:error:`).
  ///
  /// The file is opened beneath the library root without following symbolic links, read
  /// with bounded `pread` calls, and closed before this returns.
  ///
  /// For a part of a file (``byteRange``), offsets count from the part's first byte and
  /// nothing after the part is copied.
  ///
  /// - Parameters:
  ///   - buffer: Where the bytes go, from its start.
  ///   - offset: The first byte to copy; at or past the end of the file nothing is copied.
  ///   - length: How many bytes to copy at most; `buffer.count` caps it.
  /// - Returns: The number of bytes copied: fewer than asked for at the end of the file,
  ///   0 past it.
  /// - Throws: An ``AssetProblem`` when `offset` or `length` is negative, or the file can
  ///   no longer be opened or read (moved, replaced by a link or a folder, unreadable).
  /// - Complexity: O(*n*) in the number of bytes copied.
  public func getBytes(
    into buffer: UnsafeMutableRawBufferPointer, fromOffset offset: Int64, length: Int
  ) throws(AssetProblem) -> Int {
    guard offset >= 0, length >= 0 else {
      throw AssetProblem(
        .invalidValue,
        "Cannot read \(length) bytes of '\(path)' at offset \(offset): neither may be negative.")
    }
    var length = length
    var offset = offset
    if let byteRange {
      guard offset < Int64(byteRange.count) else { return 0 }
      length = Int(min(Int64(length), Int64(byteRange.count) - offset))
      offset += byteRange.lowerBound
    }
    guard length > 0, let start = Int(exactly: offset) else { return 0 }
    let target = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(length, buffer.count)])
    return try LibraryFile.withOpened(root: root, path: path) {
      file throws(AssetProblem) -> Int in
      try file.read(into: target, at: start)
    }
  }
}

extension AssetsLibrary {
  /// The representation of an asset's primary file: the still of a photo or Live Photo,
  /// the movie of a video (`ALAsset.defaultRepresentation`).
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: The primary file's representation.
  /// - Throws: ``LibraryError`` when the library's root folder cannot be opened.
  public func defaultRepresentation(for asset: Asset) async throws(LibraryError)
    -> AssetRepresentation
  {
    let root = try LibraryRoot(path: rootPath)
    let resource =
      asset.resources.first
      ?? AssetResource(path: asset.path, role: .photo, format: nil, fileSize: asset.fileSize)
    return AssetRepresentation(
      asset: asset, resource: resource, metadata: asset.metadata, root: root)
  }

  /// The representations of every file of an asset, primary first: one for a photo or a
  /// video, the still then the paired movie for a Live Photo. Sidecars
  /// (``AssetResource/Role/sidecar``) are not representations and are left out.
  ///
  /// The paired movie's size and metadata are read from the movie when this is called
  /// (the asset's own metadata is the still's); for a motion photo, from the video's
  /// bytes inside the still's file (``AssetResource/byteRange``).
  ///
  /// - Parameter asset: An asset of this library.
  /// - Returns: One representation per resource.
  /// - Throws: ``LibraryError`` when the library's root folder cannot be opened.
  public func representations(for asset: Asset) async throws(LibraryError)
    -> [AssetRepresentation]
  {
    let root = try LibraryRoot(path: rootPath)
    return asset.resources.filter { $0.role != .sidecar }.map { resource in
      var metadata = asset.metadata
      if let range = resource.byteRange {
        metadata = AssetReader.embeddedVideoMetadata(
          of: resource.path, range: range, root: root)
      } else if resource.path != asset.path {
        if let format = resource.format {
          metadata = AssetReader.readMetadata(
            of: resource.path, format: format, root: root)
        } else {
          metadata = MediaMetadata()
        }
      }
      return AssetRepresentation(asset: asset, resource: resource, metadata: metadata, root: root)
    }
  }

  /// The representation of an asset's file of type `uniformTypeIdentifier`
  /// (`ALAsset.representationForUTI:`), such as `com.apple.quicktime-movie` for a Live
  /// Photo's movie.
  ///
  /// - Parameters:
  ///   - uniformTypeIdentifier: A type identifier as ``AssetRepresentation`` reports them.
  ///   - asset: An asset of this library.
  /// - Returns: The first representation of that type, or `nil` when the asset has none.
  /// - Throws: ``LibraryError`` when the library's root folder cannot be opened.
  public func representation(forType uniformTypeIdentifier: String, of asset: Asset)
    async throws(LibraryError) -> AssetRepresentation?
  {
    try await representations(for: asset).first {
      $0.uniformTypeIdentifier == uniformTypeIdentifier
    }
  }
}
