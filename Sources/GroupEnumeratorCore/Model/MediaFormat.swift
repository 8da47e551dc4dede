/// The container format of a media file, decided by its content (magic bytes and `ftyp`
/// brands), never by its name alone.
public enum MediaFormat: String, Sendable, Hashable, CaseIterable, Codable {
  case jpeg = "JPEG"
  case png = "PNG"
  case gif = "GIF"
  case bmp = "BMP"
  case tiff = "TIFF"
  case webp = "WEBP"
  case heic = "HEIC"
  case avif = "AVIF"
  case jpegXL = "JXL"
  /// Adobe Photoshop document (PSD, or PSB for large documents): its header and image
  /// resources are read.
  case psd = "PSD"
  /// JPEG 2000: a JP2 file (box structure) or a bare codestream (`.j2k`).
  case jpeg2000 = "JP2"
  /// A camera RAW: TIFF-based (DNG, CR2, NEF, ARW, …; sniffed as TIFF, told apart by
  /// name), or one with its own magic (CR3, CRW, MRW, ORF, RW2, RAF).
  case raw = "RAW"
  case quickTime = "MOV"
  case mp4 = "MP4"
  case m4v = "M4V"
  case threeGPP = "3GP"
  /// AVI (RIFF `AVI `): its header list gives the size and duration.
  case avi = "AVI"
  /// Matroska or WebM (EBML): listed as a video, its container is not read.
  case matroska = "MKV"
  /// MPEG transport stream (`.mts`, `.m2ts`, `.ts`; AVCHD): size, duration and the
  /// camera's recording date are read from its first and last packets.
  case mpegTransportStream = "M2TS"
  /// Windows Media (ASF): listed as a video, its container is not read.
  case windowsMedia = "WMV"

  /// Whether the format holds a moving picture.
  public var isVideo: Bool {
    switch self {
    case .quickTime, .mp4, .m4v, .threeGPP, .avi, .matroska, .mpegTransportStream, .windowsMedia:
      true
    default: false
    }
  }

  /// Whether the engine reads metadata from inside this container (the others are
  /// listed with their file time and a problem saying so).
  public var isReadable: Bool {
    switch self {
    case .matroska, .windowsMedia: false
    default: true
    }
  }
}

/// What kind of shot an asset is.
public enum AssetType: String, Sendable, Hashable, CaseIterable, Codable {
  /// A still image.
  case photo
  /// A movie.
  case video
  /// A still and its paired movie, one shot.
  case livePhoto
}

/// Which assets an enumeration includes.
public enum AssetFilter: String, Sendable, Hashable, CaseIterable {
  /// Stills and Live Photos.
  case photos
  /// Movies only.
  case videos
  /// Everything.
  case all

  /// Whether an asset of `type` passes this filter.
  ///
  /// - Parameter type: The asset's type.
  /// - Returns: `true` when the asset is included.
  public func includes(_ type: AssetType) -> Bool {
    switch self {
    case .all: true
    case .photos: type != .video
    case .videos: type == .video
    }
  }
}
