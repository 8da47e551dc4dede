/// Reads a JPEG's metadata: markers in Swift, the EXIF block through libexif.
///
/// The marker walk (``JPEGStructure``) finds the EXIF `APP1` payload and the frame size;
/// libexif (``LibExifReader``) decodes the EXIF block; ``EXIFInterpreter`` checks and
/// converts the values. When libexif finds no EXIF sub-IFD although IFD0 points to one
/// (libexif 0.6.24 gives up on IFD0 at an out-of-range pointer), ``TIFFDirectoryWalker``
/// recovers the EXIF and GPS sub-IFDs.
enum JPEGMetadataReader {
  /// Reads everything the engine needs from a JPEG file. Never throws and never traps:
  /// what cannot be read becomes an entry in ``MediaMetadata/problems``.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: Dates, location, stored pixel size (from `SOFn`, else from EXIF
  ///   `PixelXDimension`/`PixelYDimension`), orientation and whether an IFD1 thumbnail
  ///   exists, with the problems found.
  static func read(from source: some ByteSource) -> MediaMetadata {
    let structure = JPEGStructure(parsing: source)
    var metadata = MediaMetadata()
    metadata.problems = structure.problems
    metadata.pixelWidth = structure.frameWidth
    metadata.pixelHeight = structure.frameHeight
    if let payload = structure.exifPayload {
      let table = exifTable(payload: payload, problems: &metadata.problems)
      EXIFInterpreter.apply(table, to: &metadata)
    }
    return metadata
  }

  /// The embedded EXIF (IFD1) thumbnail of a JPEG, byte for byte.
  ///
  /// - Parameter source: The file's bytes.
  /// - Returns: The thumbnail's bytes, or `nil` when the file has none.
  static func thumbnail(from source: some ByteSource) -> [UInt8]? {
    guard let payload = JPEGStructure(parsing: source).exifPayload else { return nil }
    return LibExifReader.thumbnail(payload: payload)
  }

  /// The EXIF tags of an `APP1` payload: libexif's, completed by the walker when libexif
  /// lost the sub-IFDs.
  static func exifTable(payload: [UInt8], problems: inout [AssetProblem]) -> EXIFTagTable {
    var table = LibExifReader.read(payload: payload)
    let lostDirectories = [EXIFDirectory.exif, .gps].filter { (table.entryCounts[$0] ?? 0) == 0 }
    guard !lostDirectories.isEmpty,
      var walker = TIFFDirectoryWalker(
        tiff: Array(payload.dropFirst(JPEGStructure.exifIdentifier.count)))
    else {
      if table.entryCounts.values.allSatisfy({ $0 == 0 }) {
        problems.append(.init(.malformed, "The EXIF block could not be read."))
      }
      return table
    }
    let walked = walker.read()
    var recovered: [String] = []
    for directory in lostDirectories where (walked.entryCounts[directory] ?? 0) > 0 {
      recovered.append(directory == .exif ? "EXIF" : "GPS")
      table.entryCounts[directory] = walked.entryCounts[directory]
      for (key, value) in walked.values where key.directory == directory {
        table.values[key] = value
      }
    }
    let faults = walker.faults.isEmpty ? "" : " " + walker.faults.joined(separator: " ")
    if table.entryCounts.values.allSatisfy({ $0 == 0 }) {
      problems.append(.init(.malformed, "The EXIF block could not be read." + faults))
    } else if !recovered.isEmpty {
      problems.append(
        .init(
          .malformed,
          "libexif skipped the \(recovered.joined(separator: " and ")) IFD (typically after an "
            + "out-of-range pointer); it was read directly." + faults))
    } else if !walker.faults.isEmpty {
      problems.append(.init(.malformed, "The EXIF block is damaged:" + faults))
    }
    return table
  }
}
