/// What a metadata reader found in one file. Every field is optional: absent means the
/// file did not say, or said something impossible (then ``problems`` says what).
public struct MediaMetadata: Sendable, Hashable {
  /// The TIFF `DateTime` (IFD0 0x0132) exactly as stored, `YYYY:MM:DD HH:MM:SS`; `nil`
  /// when absent or not a real date.
  public var dateTime: String?
  /// `DateTimeOriginal` with `OffsetTimeOriginal` and `SubSecTimeOriginal`.
  public var dateTimeOriginal: CaptureDate?
  /// `DateTimeDigitized` with `OffsetTimeDigitized` and `SubSecTimeDigitized`.
  public var dateTimeDigitized: CaptureDate?
  /// The TIFF `DateTime` as a date (zone from `OffsetTime` when present).
  public var modificationDateTime: CaptureDate?
  /// The best capture date of the XMP embedded in the file (an `xmp:…` source); read only
  /// when the file's EXIF has no date, and used only then.
  public var xmpDate: CaptureDate?
  /// The capture date of the asset's sidecars: its `.xmp` sidecar's best date (a
  /// `sidecar:xmp:…` source), else its Google Takeout `.json`'s `photoTakenTime`; read
  /// only when neither the file's own metadata nor its embedded XMP has a date.
  public var sidecarDate: CaptureDate?
  /// Apple's `com.apple.quicktime.creationdate` (local time with offset).
  public var quickTimeCreationDate: CaptureDate?
  /// The movie header's creation time (a UTC instant).
  public var movieHeaderCreationDate: CaptureDate?
  /// Where the shot was taken.
  public var location: Location?
  /// Stored pixel width, before orientation is applied.
  public var pixelWidth: Int?
  /// Stored pixel height, before orientation is applied.
  public var pixelHeight: Int?
  /// EXIF orientation, 1…8.
  public var orientation: Int?
  /// Whether the file embeds a thumbnail, that is whether `AssetsLibrary.thumbnail(for:)`
  /// returns bytes: the EXIF IFD1 thumbnail of a JPEG, HEIC or AVIF; for the formats
  /// exiv2 reads (camera RAW, DNG, TIFF, PNG, WebP, JPEG XL), a JPEG preview or the EXIF
  /// thumbnail. A HEIF file's own (HEVC or AV1) thumbnail items do not count.
  public var hasThumbnail: Bool = false
  /// Duration in seconds, for movies.
  public var duration: Double?
  /// The camera's maker: EXIF `Make` (IFD0 0x010F), or a movie's
  /// `com.apple.quicktime.make` (else `udta/©mak`); trailing NULs and blanks removed.
  /// `nil` when absent or not clean text (then ``problems`` says why).
  public var make: String?
  /// The camera's model: EXIF `Model` (IFD0 0x0110), or a movie's
  /// `com.apple.quicktime.model` (else `udta/©mod`); cleaned like ``make``.
  public var model: String?
  /// The lens: EXIF `LensModel` (EXIF IFD 0xA434), cleaned like ``make``. Phones write
  /// their camera module here (`iPhone 12 back dual wide camera 4.2mm f/1.6`).
  public var lensModel: String?
  /// Apple's content identifier, which ties a Live Photo's still and movie together.
  public var contentIdentifier: String?
  /// The bytes of the video embedded in a motion photo's still (Google Motion Photo,
  /// MicroVideo, Samsung), checked to lie after the image data and to start with `ftyp`;
  /// `nil` for every other file.
  var embeddedVideoRange: Range<Int>?
  /// What was wrong with the file, in the order found: at most
  /// ``ProblemLog/maximumKept``, then one that counts the rest. A value assigned here is
  /// kept as it is; readers record through ``report(_:)``, which keeps the bound.
  public var problems: [AssetProblem] {
    get { problemLog.problems }
    set { problemLog = ProblemLog(unchecked: newValue) }
  }
  /// Where ``problems`` are recorded.
  var problemLog = ProblemLog()

  /// Records a problem, keeping at most ``ProblemLog/maximumKept`` per file.
  mutating func report(_ problem: AssetProblem) { problemLog.append(problem) }

  /// Records that a per-file budget tripped; shown whatever the cap.
  mutating func reportTrippedBudget(_ problem: AssetProblem) {
    problemLog.appendTrippedBudget(problem)
  }

  /// Creates empty metadata.
  public init() {}

  /// Width as displayed: orientations 5–8 turn the picture a quarter, swapping sides.
  public var displayedWidth: Int? { isQuarterTurned ? pixelHeight : pixelWidth }

  /// Height as displayed: orientations 5–8 turn the picture a quarter, swapping sides.
  public var displayedHeight: Int? { isQuarterTurned ? pixelWidth : pixelHeight }

  private var isQuarterTurned: Bool { (5...8).contains(orientation ?? 1) }
}
