/// One EXIF block: a TIFF structure as a format stores it
/// — in a JPEG's `APP1` segment after `Exif\0\0`, a HEIF's Exif item, a PNG's `eXIf`
/// chunk or raw profile.
///
/// Reading it: libexif (``LibExifReader``) decodes the tags; when libexif finds no EXIF
/// or GPS sub-IFD although IFD0 points to one (libexif 0.6.24 gives up on IFD0 at an
/// out-of-range pointer), ``TIFFDirectoryWalker`` recovers them; ``EXIFInterpreter``
/// checks and converts the values.
struct EXIFBlock {
  /// The `Exif\0\0` identifier that starts an EXIF `APP1` payload in JPEG,
  /// and that libexif requires in front of the TIFF bytes it loads.
  static let identifier: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

  /// The bytes kept: the TIFF structure, possibly after ``identifier``.
  private let storage: [UInt8]
  /// Whether ``storage`` starts with ``identifier``.
  private let hasIdentifier: Bool

  /// A block from an `APP1` payload that starts with ``identifier`` (the caller checked).
  init(app1Payload payload: [UInt8]) {
    storage = payload
    hasIdentifier = true
  }

  /// A block from TIFF bytes.
  init(tiff: [UInt8]) {
    storage = tiff
    hasIdentifier = false
  }

  /// The TIFF structure.
  var tiff: ArraySlice<UInt8> { storage.dropFirst(hasIdentifier ? Self.identifier.count : 0) }

  /// The block as libexif loads it: ``identifier``, then the TIFF bytes (only a block made
  /// from bare TIFF bytes is copied).
  private var libExifPayload: [UInt8] { hasIdentifier ? storage : Self.identifier + storage }

  /// Reads the block's tags into `metadata` through ``EXIFInterpreter``.
  ///
  /// - Parameters:
  ///   - metadata: What the format reader found so far; gets the values and problems.
  ///   - locatesMakerNote: Whether the MakerNote is also looked up directly in the TIFF
  ///     structure (``TIFFDirectoryWalker/makerNote()``), for a format whose MakerNote
  ///     libexif may miss (HEIF: any `BYTE`/`UNDEFINED` MakerNote is Apple's candidate).
  ///   - sizeFromIFD0: Whether IFD0's `ImageWidth` × `ImageLength` is the stored size
  ///     (TIFF-structured files), as ``EXIFInterpreter/apply(_:to:sizeFromIFD0:)`` says.
  func read(
    into metadata: inout MediaMetadata, locatesMakerNote: Bool = false, sizeFromIFD0: Bool = false
  ) {
    var table = tagTable(problems: &metadata.problemLog)
    if locatesMakerNote, let walker = walker(), let note = walker.makerNote() {
      table.values[.init(directory: .exif, tag: EXIFTag.makerNote)] = .undefined(note)
    }
    EXIFInterpreter.apply(table, to: &metadata, sizeFromIFD0: sizeFromIFD0)
  }

  /// The embedded (IFD1) thumbnail, byte for byte, or `nil` when the block has none.
  var thumbnail: [UInt8]? { LibExifReader.thumbnail(payload: libExifPayload) }

  /// The EXIF tags: libexif's, completed by the walker when libexif lost the sub-IFDs, or
  /// IFD0's camera name.
  ///
  /// libexif stops reading an IFD at the first pointer out of range, so one bad entry (a
  /// GPS pointer written before the other entries, as some phones do) hides every entry
  /// after it. The walker, which records a bad entry and goes on, then gives what libexif
  /// lost: the EXIF and GPS IFDs when libexif has none, and the IFD0 tags it lacks when
  /// it lacks the make or the model.
  ///
  /// Without libexif (it could not be loaded), the walker reads the whole block, and a
  /// problem says so.
  func tagTable(problems: inout ProblemLog) -> EXIFTagTable {
    if let failure = LibExifReader.unavailable {
      let note = "libexif is not available (\(failure)); the EXIF block was "
      guard var walker = walker() else {
        problems.append(.init(.unsupported, note + "not read."))
        return EXIFTagTable()
      }
      let walked = walker.read()
      problems.append(.init(.unsupported, note + "read directly." + Self.text(of: walker.faults)))
      return walked
    }
    var table = LibExifReader.read(payload: libExifPayload)
    let lostDirectories = [EXIFDirectory.exif, .gps].filter { (table.entryCounts[$0] ?? 0) == 0 }
    let lacksCameraName = [EXIFTag.make, EXIFTag.model].contains {
      table[.ifd0, $0] == nil
    }
    guard !lostDirectories.isEmpty || lacksCameraName, var walker = walker() else {
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
    // IFD0 tags the interpreter reads that libexif did not reach. (The walker also gives
    // IFD0's image size, which libexif's table never holds, and counts the sub-IFD
    // pointers, which libexif does not store as entries: neither says anything was lost.)
    var recoveredIFD0 = false
    for (key, value) in walked.values
    where key.directory == .ifd0 && table.values[key] == nil && Self.interpretedIFD0.contains(key) {
      table.values[key] = value
      recoveredIFD0 = true
    }
    let faults = Self.text(of: walker.faults)
    if recoveredIFD0 {
      let directories = recovered.map { " and the \($0) IFD" }.joined()
      problems.append(
        .init(
          .malformed,
          "libexif stopped early in IFD0 (typically at an out-of-range pointer); IFD0's other "
            + "entries\(directories) were read directly." + faults))
      return table
    }
    guard !lostDirectories.isEmpty else { return table }
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

  /// The IFD0 tags the interpreter reads.
  private static let interpretedIFD0 = Set(EXIFTag.interpreted.filter { $0.directory == .ifd0 })

  /// The walker's faults, each after a space, to end a problem's message.
  private static func text(of faults: [TIFFParsingError]) -> String {
    faults.map { " " + $0.description }.joined()
  }

  /// A classic TIFF walker over the block, or `nil` when it has no TIFF header.
  private func walker() -> TIFFDirectoryWalker<ArrayByteSource>? {
    TIFFDirectoryWalker(tiff: hasIdentifier ? Array(tiff) : storage)
  }
}
