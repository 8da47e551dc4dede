public import FoundationEssentials

/// One file that belongs to an asset: the still or the movie of a shot, or a sidecar.
public struct AssetResource: Sendable, Hashable {
  /// What part of the asset the file is.
  public enum Role: String, Sendable, Hashable, CaseIterable, Codable {
    /// The still image of a photo or Live Photo.
    case photo
    /// A movie.
    case video
    /// The motion part of a Live Photo.
    case pairedVideo
    /// A companion file named after the asset's file (`IMG_1.xmp`, `IMG_1.JPG.xmp`,
    /// `IMG_1.AAE`, `MVI_1.THM`, `GX01.LRV`): kept with the asset, never read, and not a
    /// representation of it. Its size is not part of the asset's ``Asset/fileSize``.
    case sidecar
  }

  /// The file's path relative to the library root.
  public let path: LibraryPath
  /// What part of the asset it is.
  public let role: Role
  /// The content format, when recognised.
  public let format: MediaFormat?
  /// The file's size in bytes (for a part of a file, ``byteRange``'s length).
  public let fileSize: Int64
  /// Which bytes of the file the resource is, when it is only a part of it: the video
  /// embedded in a motion photo's still (its ``Role/pairedVideo``, which names the
  /// still's file). `nil` for a whole file.
  public let byteRange: Range<Int64>?

  /// Creates a resource.
  public init(
    path: LibraryPath, role: Role, format: MediaFormat?, fileSize: Int64,
    byteRange: Range<Int64>? = nil
  ) {
    self.path = path
    self.role = role
    self.format = format
    self.fileSize = fileSize
    self.byteRange = byteRange
  }

  /// The file name, for display.
  public var name: String { path.lastComponent }
}

/// One shot in the library — a photo, a video or a Live Photo — with everything read
/// from its file(s).
///
/// ## Overview
///
/// An asset is a value: reading its properties never touches the disk, and it can be
/// sent to any task. It is made of one or more files, its ``resources``: the primary file
/// (``path``), for a Live Photo the movie that goes with the still, and any sidecars
/// (`.xmp`, `.aae`, …) named after it, which are listed but never read.
///
/// ## When it was taken
///
/// ``creationDate`` is the best capture date the file offers, and says where it came
/// from (``CaptureDate/source``): the EXIF original date, a QuickTime creation date, the
/// movie header's UTC time, or, failing all of those, the file's modification time.
/// ``metadata`` keeps every date that was read, with its offset and sub-seconds.
///
/// ## Problems
///
/// A file that cannot be read, or only in part, is still an asset: ``problems`` says
/// what went wrong and everything that could be read is kept. A photo or video format no
/// reader takes (an `.x3f`, an `.mpg`) is an asset with an
/// ``AssetProblem/Code/unsupported`` problem. Files that are not photos or videos at all
/// (a `.txt`, `Thumbs.db`, a sidecar that fits no asset) are not assets but
/// ``OtherFile``s.
///
/// ## Identity
///
/// ``id`` and ``url`` derive from the primary file's path relative to the library root,
/// so they stay the same from one run to the next while the file keeps its name.
/// ``AssetsLibrary/asset(for:)`` finds an asset again by its URL and
/// ``AssetsLibrary/asset(at:)`` by the path of any of its files.
///
/// ## Progress and the main actor
///
/// Assets are delivered by ``AssetsLibrary``, whose progress closures run isolated to the
/// main actor, which on Linux is not the main thread after the first `await`
/// (`Thread.isMainThread` is `false` there); see ``AssetsLibrary`` for what that means
/// and how to wait for the work to finish.
public struct Asset: Sendable, Hashable, Identifiable {
  /// A stable identifier derived from the primary file's path relative to the root.
  public let id: UUID
  /// The asset's primary file (the still of a Live Photo).
  public let path: LibraryPath
  /// The kind of group the asset belongs to (the Camera Roll or an album), not the group
  /// itself: with ``groupPath`` it names the group,
  /// `AssetGroup(kind: asset.group, path: asset.groupPath)`.
  public let group: AssetGroup.Kind
  /// The path of the group's folder (the root for the Camera Roll).
  public let groupPath: LibraryPath
  /// Photo, video or Live Photo.
  public let type: AssetType
  /// The files that make up the asset: primary first, then a Live Photo's movie, then
  /// any sidecars (role ``AssetResource/Role/sidecar``) by path.
  public let resources: [AssetResource]
  /// The primary file's modification time.
  public let fileModificationDate: Date
  /// What the metadata reader found (for a Live Photo, the still's, with the movie's
  /// duration).
  ///
  /// The metadata is kept out of line and shared between copies of the asset; this returns
  /// a copy of it. The properties below (``location``, ``pixelWidth``, ``creationDate``, …)
  /// read single fields without copying the rest.
  public var metadata: MediaMetadata { storage.metadata }
  /// Problems with the file(s) or their metadata.
  public let problems: [AssetProblem]

  /// The metadata, kept out of line: it is most of an asset's size (five capture dates),
  /// and enumerations copy assets between arrays many times. Immutable, so sharing it
  /// between copies is safe.
  private let storage: MetadataStorage

  /// Creates an asset.
  public init(
    path: LibraryPath, group: AssetGroup.Kind, groupPath: LibraryPath, type: AssetType,
    resources: [AssetResource], fileModificationDate: Date, metadata: MediaMetadata,
    problems: [AssetProblem] = []
  ) {
    self.id = StableIdentifier.uuid(namespace: "asset", path: path)
    self.path = path
    self.group = group
    self.groupPath = groupPath
    self.type = type
    self.resources = resources
    self.fileModificationDate = fileModificationDate
    self.storage = MetadataStorage(metadata)
    self.problems = metadata.problems + problems
  }

  /// Whether two assets have equal properties, metadata included.
  public static func == (lhs: Asset, rhs: Asset) -> Bool {
    lhs.id == rhs.id && lhs.path == rhs.path && lhs.group == rhs.group
      && lhs.groupPath == rhs.groupPath && lhs.type == rhs.type
      && lhs.resources == rhs.resources && lhs.fileModificationDate == rhs.fileModificationDate
      && lhs.problems == rhs.problems
      && (lhs.storage === rhs.storage || lhs.storage.metadata == rhs.storage.metadata)
  }

  /// Hashes the properties ``==`` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(path)
    hasher.combine(group)
    hasher.combine(groupPath)
    hasher.combine(type)
    hasher.combine(resources)
    hasher.combine(fileModificationDate)
    hasher.combine(problems)
    hasher.combine(storage.metadata)
  }

  /// The primary file's name.
  public var name: String { path.lastComponent }

  /// The primary file's extension as written (`JPG`, `heic`), or empty.
  public var fileExtension: String { path.fileExtension }

  /// `assets-library://asset/asset.JPG?id=<UUID>&ext=JPG`.
  public var url: URL { URL(string: urlString) ?? URL(fileURLWithPath: "/") }

  /// ``url`` as text, made without parsing a `URL` (what JSON output needs, per asset).
  public var urlString: String {
    let ext = fileExtension
    // The usual extension (`JPG`, `heic`) has nothing to escape.
    let isPlain = ext.utf8.allSatisfy { byte in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
    let escapedExt =
      isPlain ? ext : ext.percentEncodingAllButASCIIAlphanumerics
    let identifier = StableIdentifier.text(of: id)
    return "assets-library://asset/asset.\(escapedExt)?id=\(identifier)&ext=\(escapedExt)"
  }

  /// The primary file's size in bytes.
  public var fileSize: Int64 { resources.first?.fileSize ?? 0 }

  /// The width as displayed (orientation applied).
  public var pixelWidth: Int? { storage.metadata.displayedWidth }
  /// The height as displayed (orientation applied).
  public var pixelHeight: Int? { storage.metadata.displayedHeight }
  /// Where it was taken.
  public var location: Location? { storage.metadata.location }
  /// The movie's length in seconds.
  public var duration: Double? { storage.metadata.duration }

  /// When the shot was taken, with its source: photos take DateTimeOriginal, then
  /// DateTimeDigitized, then the TIFF DateTime, then the date of their embedded XMP, then
  /// an AVIF image sequence's movie header; videos take Apple's creationdate, then the movie header, then an AVCHD camera's
  /// recording time; Live Photos take the still's dates, then the movie's. Only then come
  /// the sidecars (an `.xmp` sidecar, then a Google Takeout `.json`), and last the file's
  /// modification time.
  public var creationDate: CaptureDate? {
    // The first date present, in the order above, each read in place: no array of
    // candidates and no copy of the metadata (this runs once per asset listed).
    switch type {
    case .video:
      // An AVCHD camera's recording time (MDPM) is its DateTimeOriginal.
      let recorded = storage.metadata.quickTimeCreationDate
      if let date = recorded ?? storage.metadata.movieHeaderCreationDate
        ?? storage.metadata.dateTimeOriginal ?? storage.metadata.sidecarDate
      {
        return date
      }
    case .photo:
      if let date = storage.metadata.dateTimeOriginal ?? storage.metadata.dateTimeDigitized
        ?? storage.metadata.modificationDateTime ?? storage.metadata.xmpDate
        ?? storage.metadata.movieHeaderCreationDate ?? storage.metadata.sidecarDate
      {
        return date
      }
    case .livePhoto:
      if let date = storage.metadata.dateTimeOriginal ?? storage.metadata.dateTimeDigitized
        ?? storage.metadata.modificationDateTime ?? storage.metadata.xmpDate
        ?? storage.metadata.quickTimeCreationDate ?? storage.metadata.movieHeaderCreationDate
        ?? storage.metadata.sidecarDate
      {
        return date
      }
    }
    return CaptureDate(utc: fileModificationDate, source: .fileModificationTime)
  }
}

/// An asset's metadata behind a reference, so that copying an asset copies one pointer.
private final class MetadataStorage: Sendable {
  let metadata: MediaMetadata

  init(_ metadata: MediaMetadata) { self.metadata = metadata }
}
