/// Decides a file's media format from its first bytes, and which names are candidates.
///
/// Content decides: a QuickTime movie named `.jpg` is a movie, a JPEG without an
/// extension is a photo. The name only tells TIFF-based camera RAWs (DNG, NEF, ARW, …)
/// apart from plain TIFF, whose bytes look the same.
enum MediaSniffer {
  /// How many leading bytes ``format(ofHeader:)`` needs to decide.
  static let headerLength = 64

  /// The format the content is, or `nil` when it is not a media format we know.
  ///
  /// Only the first ``headerLength`` bytes are looked at; fewer are fine (a short
  /// header simply matches fewer signatures).
  ///
  /// - Parameter header: The file's first bytes.
  /// - Returns: The format, or `nil`.
  static func format(ofHeader header: [UInt8]) -> MediaFormat? {
    let bytes = header.prefix(headerLength)
    if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
      return .gif
    }
    if let format = tiffFamilyFormat(bytes) { return format }
    if bytes.starts(with: Array("RIFF".utf8)), matches(bytes, "WEBP", at: 8) { return .webp }
    if bytes.starts(with: Array("RIFF".utf8)), matches(bytes, "AVI ", at: 8) { return .avi }
    if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
    if bytes.starts(with: asfHeaderObject) { return .windowsMedia }
    if isJPEGXL(bytes) { return .jpegXL }
    if isBMP(bytes) { return .bmp }
    if bytes.starts(with: Array("8BPS".utf8)),
      let version = IntegerReader.bigEndian.uint16(bytes, at: 4), version == 1 || version == 2
    {
      return .psd
    }
    if bytes.starts(with: jp2Signature) || bytes.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
      return .jpeg2000
    }
    if matches(bytes, "ftyp", at: 4) { return isoMediaFormat(bytes) }
    if isQuickTimeWithoutFileType(bytes) { return .quickTime }
    return nil
  }

  /// The format of a file, from its content, told apart from plain TIFF by its name.
  ///
  /// TIFF content in a file whose extension is a TIFF-based RAW (`dng`, `cr2`, `nef`,
  /// `arw`, `orf`, `rw2`, `pef`, `srw`) is ``MediaFormat/raw``; everything else is
  /// what ``format(ofHeader:)`` says.
  ///
  /// - Parameters:
  ///   - header: The file's first bytes.
  ///   - name: The file name's bytes.
  /// - Returns: The format, or `nil` when the content is not a media format we know.
  static func format(ofHeader header: [UInt8], name: [UInt8]) -> MediaFormat? {
    let sniffed = format(ofHeader: header)
    if sniffed == nil, let ext = lowercasedExtension(of: name),
      transportStreamExtensions.contains(ext),
      isTransportStream(header)
    {
      return .mpegTransportStream
    }
    if sniffed == .tiff, let ext = lowercasedExtension(of: name), tiffRawExtensions.contains(ext) {
      return .raw
    }
    return sniffed
  }

  /// The ASF header object's GUID, which starts every Windows Media file.
  private static let asfHeaderObject: [UInt8] = [
    0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C,
  ]

  /// The JPEG 2000 signature box that starts a JP2 file: length 12, `jP  `, `\r\n\x87\n`.
  private static let jp2Signature: [UInt8] = [
    0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A,
  ]

  /// Extensions of MPEG transport streams, whose only magic is a sync byte.
  private static let transportStreamExtensions: Set<String> = ["mts", "m2ts", "m2t", "ts"]

  /// Whether the header starts like a transport stream: sync byte 0x47 at 0 (188-byte
  /// packets), or at 4 (192-byte packets with a time code, as cameras write `.mts`).
  private static func isTransportStream(_ header: [UInt8]) -> Bool {
    header.first == 0x47 || (header.count > 4 && header[4] == 0x47)
  }

  /// The format a file name's extension promises (`jpg`, `JPEG`, `heic`, `mov`…),
  /// compared without regard to ASCII case; `nil` for names that are not media.
  ///
  /// - Parameter name: A file name's bytes (the last path component).
  /// - Returns: The promised format, or `nil`.
  static func format(forName name: [UInt8]) -> MediaFormat? {
    guard let ext = lowercasedExtension(of: name) else { return nil }
    return extensionFormats[ext]
  }

  /// Whether a file with this name is a sidecar: a companion file that belongs to a
  /// photo or video of the same name in its folder rather than being a shot of its own.
  /// XMP metadata (`.xmp`, also `IMG_1.JPG.xmp`), Apple edit recipes (`.aae`), camera
  /// thumbnails (`.thm`, JPEG bytes) and low-resolution proxy videos (`.lrv`, `.lrf`, MP4
  /// bytes). Sidecars are never read: the walk attaches each to its asset by name.
  ///
  /// - Parameter name: A file name's bytes.
  /// - Returns: `true` for a sidecar extension, in any ASCII case.
  static func isSidecar(name: [UInt8]) -> Bool {
    guard let ext = lowercasedExtension(of: name) else { return false }
    return sidecarExtensions.contains(ext)
  }

  /// Whether a file that is not media by content is still named like a video: its
  /// extension is a video container's (`avi`, `mkv`, `mpg`, `flv`, `lrv`, …). Files that
  /// no reader takes are listed as videos when this holds, else as photos.
  ///
  /// - Parameter name: A file name's bytes.
  /// - Returns: `true` for a video container extension, in any ASCII case.
  static func isVideoName(_ name: [UInt8]) -> Bool {
    guard let ext = lowercasedExtension(of: name) else { return false }
    return extensionFormats[ext]?.isVideo == true || otherVideoExtensions.contains(ext)
  }

  /// Whether a file with this name is media by its extension alone: a format a reader
  /// takes (``format(forName:)``), or a photo or video format none reads (a Sigma `.x3f`,
  /// a Kyocera `.raw`, a `.psd`, a RED `.r3d`, an `.mpg`). Such a file is an asset whatever
  /// its content, with a problem when it cannot be read; a file that is media neither by
  /// name nor by content is an ``OtherFile``. Sidecar names (``isSidecar(name:)``) are
  /// decided before this.
  ///
  /// - Parameter name: A file name's bytes.
  /// - Returns: `true` for a photo or video extension, in any ASCII case.
  static func isMediaName(_ name: [UInt8]) -> Bool {
    guard let ext = lowercasedExtension(of: name) else { return false }
    return extensionFormats[ext] != nil || otherVideoExtensions.contains(ext)
      || otherPhotoExtensions.contains(ext)
  }

  /// Whether the content is an AppleDouble resource file (`._IMG_0001.JPG` on volumes
  /// written by macOS): metadata about another file, never a photo of its own.
  ///
  /// - Parameter header: The file's first bytes.
  /// - Returns: `true` for AppleDouble (magic `00 05 16 07`).
  static func isAppleDouble(header: [UInt8]) -> Bool {
    header.starts(with: [0x00, 0x05, 0x16, 0x07])
  }

  // MARK: - Names

  private static let extensionFormats: [String: MediaFormat] = [
    "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "jfif": .jpeg,
    "png": .png, "gif": .gif, "bmp": .bmp, "tif": .tiff, "tiff": .tiff, "webp": .webp,
    "heic": .heic, "heif": .heic, "hif": .heic, "avif": .avif, "jxl": .jpegXL,
    "dng": .raw, "cr2": .raw, "cr3": .raw, "nef": .raw, "arw": .raw, "orf": .raw,
    "rw2": .raw, "pef": .raw, "srw": .raw, "raf": .raw, "crw": .raw, "mrw": .raw,
    "psd": .psd, "psb": .psd, "jp2": .jpeg2000, "j2k": .jpeg2000, "jpf": .jpeg2000,
    "j2c": .jpeg2000,
    "mov": .quickTime, "qt": .quickTime, "mp4": .mp4, "m4v": .m4v,
    "3gp": .threeGPP, "3g2": .threeGPP, "avi": .avi, "mkv": .matroska, "webm": .matroska,
    "mts": .mpegTransportStream, "m2ts": .mpegTransportStream, "wmv": .windowsMedia,
  ]

  /// RAW extensions whose files are TIFF inside (RAF is not, and has its own magic).
  private static let tiffRawExtensions: Set<String> = [
    "dng", "cr2", "nef", "arw", "orf", "rw2", "pef", "srw",
  ]

  private static let sidecarExtensions: Set<String> = ["xmp", "aae", "thm", "lrv", "lrf"]

  /// Video container extensions no reader takes (beyond ``extensionFormats``' videos).
  private static let otherVideoExtensions: Set<String> = [
    "mpg", "mpeg", "mpe", "m1v", "m2v", "m2t", "vob", "mod", "tod", "flv", "f4v", "ogv",
    "ogm", "rm", "rmvb", "asf", "divx", "dv", "mxf", "wtv", "lrv", "lrf", "r3d", "braw", "crm",
  ]

  /// Photo extensions no reader takes (beyond ``extensionFormats``' photos): camera RAWs
  /// (Sigma X3F, Kyocera and Panasonic RAW, Canon CRW, Minolta MRW, Hasselblad, Phase
  /// One, Kodak, Leaf, Mamiya, GoPro…), Photoshop and JPEG 2000 images, and image formats
  /// without a reader (PCX, TGA, SGI, Netpbm, QOI, DDS, XCF, OpenEXR).
  private static let otherPhotoExtensions: Set<String> = [
    "x3f", "raw", "rwl", "crw", "mrw", "3fr", "fff", "iiq", "cap", "eip", "mos", "erf", "kdc",
    "dcr", "dcs", "k25", "mef", "mdc", "nrw", "sr2", "srf", "ari", "bay", "gpr",
    "psd", "psb", "jp2", "j2k", "jpf", "jpx", "jxr", "hdp", "wdp",
    // Images no reader takes (``unreadImage(ofHeader:name:)`` knows most by content).
    "pcx", "tga", "icb", "vda", "vst", "sgi", "pbm", "pgm", "ppm", "pnm", "pam", "qoi", "dds",
    "xcf", "exr",
  ]

  /// The name's extension (``LibraryPath/extensionStart(inName:)``) lower-cased in
  /// ASCII; `nil` when it has none, or when it is empty, longer than 8 bytes or not plain
  /// ASCII (no media or sidecar extension is).
  static func lowercasedExtension(of name: [UInt8]) -> String? {
    guard let start = LibraryPath.extensionStart(inName: name) else { return nil }
    let ext = name[start...]
    guard !ext.isEmpty, ext.count <= 8, ext.allSatisfy({ $0 < 0x80 }) else { return nil }
    return String(decoding: LibraryPath.lowercasedASCII(ext), as: UTF8.self)
  }

  // MARK: - Signatures

  /// Whether `text`'s ASCII bytes occur in `bytes` at `offset`.
  private static func matches(_ bytes: ArraySlice<UInt8>, _ text: String, at offset: Int) -> Bool {
    let start = bytes.startIndex + offset
    let pattern = Array(text.utf8)
    guard start >= bytes.startIndex, bytes.endIndex - start >= pattern.count else { return false }
    return bytes[start..<(start + pattern.count)].elementsEqual(pattern)
  }

  /// The four bytes at `offset`, or `nil` when the header is shorter.
  private static func fourBytes(_ bytes: ArraySlice<UInt8>, at offset: Int) -> [UInt8]? {
    let start = bytes.startIndex + offset
    guard offset >= 0, bytes.endIndex - start >= 4 else { return nil }
    return Array(bytes[start..<(start + 4)])
  }

  /// The big-endian 32-bit value at `offset`, or `nil` when the header is shorter.
  private static func bigEndianUInt32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32? {
    IntegerReader.bigEndian.uint32(bytes, at: offset)
  }

  /// TIFF (classic and BigTIFF, either byte order) and the RAWs with their own TIFF-like
  /// or private magic: Canon CR2 and CRW, Olympus ORF, Panasonic RW2, Fujifilm RAF,
  /// Minolta MRW.
  private static func tiffFamilyFormat(_ bytes: ArraySlice<UInt8>) -> MediaFormat? {
    let tiff: [[UInt8]] = [
      [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A],  // II*\0, MM\0*
      [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B],  // BigTIFF
    ]
    let vendorRaw: [[UInt8]] = [
      Array("IIRO".utf8), Array("IIRS".utf8), Array("MMOR".utf8),  // Olympus ORF
      [0x49, 0x49, 0x55, 0x00],  // Panasonic RW2: IIU\0
    ]
    if vendorRaw.contains(where: { bytes.starts(with: $0) }) { return .raw }
    if bytes.starts(with: Array("FUJIFILMCCD-RAW".utf8)) { return .raw }
    // Minolta MRW (`\0MRM`) and Canon CRW (a byte order, the header length, `HEAPCCDR`).
    if bytes.starts(with: [0x00, 0x4D, 0x52, 0x4D]) { return .raw }
    if bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D]),
      matches(bytes, "HEAPCCDR", at: 6)
    {
      return .raw
    }
    guard tiff.contains(where: { bytes.starts(with: $0) }) else { return nil }
    // Canon CR2: a little-endian TIFF with "CR", version 2 at offset 8.
    if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]), matches(bytes, "CR\u{02}", at: 8) {
      return .raw
    }
    return .tiff
  }

  /// JPEG XL: the bare codestream (`FF 0A`) or the ISO-BMFF container signature box.
  private static func isJPEGXL(_ bytes: ArraySlice<UInt8>) -> Bool {
    bytes.starts(with: [0xFF, 0x0A])
      || bytes.starts(with: [
        0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A,
      ])
  }

  /// BMP: `BM`, then a DIB header whose size is one of the defined ones — two letters
  /// alone would claim text files that happen to start with "BM".
  private static func isBMP(_ bytes: ArraySlice<UInt8>) -> Bool {
    guard bytes.starts(with: Array("BM".utf8)),
      let dibHeaderSize = IntegerReader.littleEndian.uint32(bytes, at: 14)
    else {
      return false
    }
    return [12, 16, 40, 52, 56, 64, 108, 124].contains(dibHeaderSize)
  }

  /// A QuickTime movie that starts with a classic atom instead of `ftyp`: its size
  /// field must be plausible (0, 1 or at least 8) and its type one QuickTime writes first.
  private static func isQuickTimeWithoutFileType(_ bytes: ArraySlice<UInt8>) -> Bool {
    guard let size = bigEndianUInt32(bytes, at: 0), size <= 1 || size >= 8 else { return false }
    return ["moov", "mdat", "wide", "free", "skip", "pnot"].contains { matches(bytes, $0, at: 4) }
  }

  // MARK: - ISO base media file format

  private static let heicBrands: Set<String> = [
    "heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "mif1", "msf1",
  ]
  private static let avifBrands: Set<String> = ["avif", "avis"]

  /// The format an ISO-BMFF file's `ftyp` box names: the major
  /// brand and the compatible brands that fit in the header and in the box.
  private static func isoMediaFormat(_ bytes: ArraySlice<UInt8>) -> MediaFormat? {
    guard let boxSize = bigEndianUInt32(bytes, at: 0), let major = brand(bytes, at: 8) else {
      return nil
    }
    // Compatible brands follow the major brand and minor version, up to the box's end.
    let end = boxSize >= 16 ? min(Int(boxSize), bytes.count) : bytes.count
    var compatible: [String] = []
    var offset = 16
    while offset + 4 <= end, let next = brand(bytes, at: offset) {
      compatible.append(next)
      offset += 4
    }
    // HEIF's low-overhead `mif3` brand carries the profile brand in the minor version.
    if major == "mif3", let profile = brand(bytes, at: 12) { compatible.insert(profile, at: 0) }
    let brands = [major] + compatible
    if brands.contains("crx ") { return .raw }  // Canon CR3
    if brands.contains(where: avifBrands.contains) { return .avif }
    if brands.contains(where: heicBrands.contains) { return .heic }
    if let format = videoFormat(ofBrand: major) { return format }
    for brand in compatible {
      if let format = videoFormat(ofBrand: brand) { return format }
    }
    return nil
  }

  private static func brand(_ bytes: ArraySlice<UInt8>, at offset: Int) -> String? {
    fourBytes(bytes, at: offset).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The video format a brand names, or `nil` for brands that name no video format.
  private static func videoFormat(ofBrand brand: String) -> MediaFormat? {
    switch brand {
    case "qt  ": return .quickTime
    case "M4V ", "M4VH", "M4VP": return .m4v
    case _ where brand.hasPrefix("3gp") || brand.hasPrefix("3g2"): return .threeGPP
    case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9",
      "mp41", "mp42", "mp4v", "avc1", "dash", "mmp4", "MSNV", "f4v ", "XAVC", "NDAS":
      return .mp4
    default: return nil
    }
  }
}
