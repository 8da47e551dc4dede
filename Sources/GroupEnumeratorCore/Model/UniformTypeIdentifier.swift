/// Apple's uniform type identifiers (UTIs) for the formats the engine recognises, as
/// `ALAssetRepresentation.UTI` reported them.
///
/// The content format decides; the file extension only picks among the identifiers of one
/// format (a camera RAW's maker, `.heif` against `.heic`, `.3g2` against `.3gp`).
enum UniformTypeIdentifier {
  /// The identifier for a file of `format` whose name ends in `fileExtension`.
  ///
  /// - Parameters:
  ///   - format: The format the content sniffed as, or `nil` when not recognised.
  ///   - fileExtension: The file's extension as written, in any case, without the dot.
  /// - Returns: For example `public.jpeg`, `com.canon.cr2-raw-image`,
  ///   `com.apple.quicktime-movie`; `public.data` for an unrecognised file.
  static func identifier(format: MediaFormat?, fileExtension: String) -> String {
    let name = fileExtension.lowercased()
    guard let format else { return "public.data" }
    switch format {
    case .jpeg: return "public.jpeg"
    case .png: return "public.png"
    case .gif: return "com.compuserve.gif"
    case .bmp: return "com.microsoft.bmp"
    case .tiff: return "public.tiff"
    case .webp: return "org.webmproject.webp"
    case .heic: return ["heif", "hif"].contains(name) ? "public.heif" : "public.heic"
    case .avif: return "public.avif"
    case .jpegXL: return "public.jpeg-xl"
    case .psd: return "com.adobe.photoshop-image"
    case .jpeg2000: return "public.jpeg-2000"
    case .raw: return rawIdentifiers[name] ?? "public.camera-raw-image"
    case .quickTime: return "com.apple.quicktime-movie"
    case .mp4: return "public.mpeg-4"
    case .m4v: return "com.apple.m4v-video"
    case .threeGPP: return name == "3g2" ? "public.3gpp2" : "public.3gpp"
    case .avi: return "public.avi"
    case .matroska: return name == "webm" ? "org.webmproject.webm" : "org.matroska.mkv"
    case .mpegTransportStream: return "public.mpeg-2-transport-stream"
    case .windowsMedia: return "com.microsoft.windows-media-wmv"
    }
  }

  /// Camera RAW identifiers by lower-case extension, as Apple's CoreTypes declares them.
  static let rawIdentifiers: [String: String] = [
    "dng": "com.adobe.raw-image",
    "cr2": "com.canon.cr2-raw-image",
    "cr3": "com.canon.cr3-raw-image",
    "crw": "com.canon.crw-raw-image",
    "nef": "com.nikon.raw-image",
    "nrw": "com.nikon.nrw-raw-image",
    "arw": "com.sony.arw-raw-image",
    "sr2": "com.sony.sr2-raw-image",
    "srf": "com.sony.raw-image",
    "orf": "com.olympus.raw-image",
    "rw2": "com.panasonic.rw2-raw-image",
    "raw": "com.panasonic.raw-image",
    "pef": "com.pentax.raw-image",
    "srw": "com.samsung.raw-image",
    "raf": "com.fuji.raw-image",
    "3fr": "com.hasselblad.3fr-raw-image",
    "fff": "com.hasselblad.fff-raw-image",
    "erf": "com.epson.raw-image",
    "mrw": "com.konicaminolta.raw-image",
    "dcr": "com.kodak.raw-image",
    "x3f": "com.sigma.raw-image",
    "rwl": "com.leica.rwl-raw-image",
    "iiq": "com.phaseone.raw-image",
  ]
}
