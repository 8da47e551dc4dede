/// Reads a JPEG's metadata: markers in Swift, the EXIF block through libexif.
///
/// The marker walk (``JPEGStructure``) finds the EXIF `APP1` payload and the frame size;
/// ``EXIFBlock`` reads the EXIF block (libexif, completed by the TIFF walker, then
/// ``EXIFInterpreter``).
enum JPEGMetadataReader {
  /// Reads everything the engine needs from a JPEG file. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size (from `SOFn`, else from EXIF
  ///   `PixelXDimension`/`PixelYDimension`), orientation, make, model and lens, and
  ///   whether an IFD1 thumbnail exists, with the problems found (a
  ///   ``AssetProblem/Code/truncated`` one when the image data has no end:
  ///   ``JPEGStructure/truncation(of:imageDataStart:videoStart:mayBeMotionPhoto:)``,
  ///   checked where the file's last bytes are in memory already or when the source
  ///   verifies ends: ``ByteSource/checksEnd(before:notBefore:)``).
  static func read(from source: some ByteSource) -> MediaMetadata {
    let structure = JPEGStructure(parsing: source)
    var metadata = MediaMetadata()
    metadata.problems = structure.problems
    metadata.pixelWidth = structure.frameWidth
    metadata.pixelHeight = structure.frameHeight
    if structure.heightIsInDNL, let start = structure.imageDataStart {
      metadata.pixelHeight = JPEGStructure.heightFromDNL(in: source, imageDataStart: start)
    }
    structure.exifBlock?.read(into: &metadata)
    // Searched once for the motion-photo names; parsed at most once: by the fallback when
    // EXIF left a gap the packet may fill, else by the locator when it may describe a
    // motion photo.
    let mayBeMotionPhoto = structure.xmpPacket.map(MotionPhotoLocator.mayDescribeMotionPhoto)
    if let packet = structure.xmpPacket {
      let parsed = XMPFallback.apply(packet, to: &metadata)
      if mayBeMotionPhoto == true {
        MotionPhotoLocator.apply(
          packet, parsed: parsed, in: source, imageEnd: structure.imageDataStart, to: &metadata)
      }
    }
    let end = metadata.embeddedVideoRange?.lowerBound ?? source.count
    if let imageDataStart = structure.imageDataStart,
      source.checksEnd(before: end, notBefore: imageDataStart + 2),
      let problem = JPEGStructure.truncation(
        of: source, imageDataStart: imageDataStart,
        videoStart: metadata.embeddedVideoRange?.lowerBound,
        mayBeMotionPhoto: mayBeMotionPhoto ?? false)
    {
      metadata.report(problem)
    }
    return metadata
  }

  /// The embedded EXIF (IFD1) thumbnail of a JPEG, byte for byte.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: The thumbnail's bytes, or `nil` when the file has none.
  static func thumbnail(from source: some ByteSource) -> [UInt8]? {
    JPEGStructure(parsing: source).exifBlock?.thumbnail
  }
}

extension JPEGMetadataReader: MetadataReader {
  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    read(from: source)
  }

  static func thumbnail(from source: some ByteSource, format: MediaFormat) -> [UInt8]? {
    thumbnail(from: source)
  }
}
