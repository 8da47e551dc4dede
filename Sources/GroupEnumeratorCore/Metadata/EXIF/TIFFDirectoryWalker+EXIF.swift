/// What EXIF asks of a TIFF structure: IFD0, the EXIF and
/// GPS IFDs its pointer tags name, and the raw bytes of the MakerNote.
///
/// libexif 0.6.24 stops reading IFD0 at the first pointer tag whose value lies past the
/// end of the block (Samsung cameras write such thumbnail offsets), and so loses the EXIF
/// and GPS sub-IFDs that follow (fixed upstream in 0.6.25). These queries read IFD0 and
/// the sub-IFDs it points to, skipping any entry they cannot read instead of giving up,
/// so that ``EXIFBlock`` can recover those tags; CR3 and BigTIFF are read with them alone.
extension TIFFDirectoryWalker {
  /// Reads IFD0 and its EXIF and GPS sub-IFDs, decoding the tags in
  /// ``EXIFTag/walked``.
  ///
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read() -> EXIFTagTable { read(firstDirectoryAs: .ifd0) }

  /// Reads the directory the header points to as `directory`; when that is IFD0, also the
  /// EXIF and GPS sub-IFDs it points to.
  ///
  /// A block whose first IFD is not IFD0 is how Canon CR3 stores its EXIF and GPS IFDs:
  /// each in a TIFF block of its own (`CMT2`, `CMT4`).
  ///
  /// - Parameter directory: What the first IFD is.
  /// - Complexity: O(*n*) in the number of entries read; each directory is read once.
  mutating func read(firstDirectoryAs directory: EXIFDirectory) -> EXIFTagTable {
    var table = EXIFTagTable()
    let firstEntries = self.directory(at: firstDirectoryOffset)
    store(firstEntries, as: directory, into: &table)
    guard directory == .ifd0 else { return table }
    for (pointer, target) in [
      (EXIFTag.exifIFDPointer, EXIFDirectory.exif), (EXIFTag.gpsInfoIFDPointer, .gps),
    ] {
      guard let entry = firstEntries.first(where: { $0.tag == pointer }) else { continue }
      guard let offset = subdirectoryOffset(of: entry) else {
        faults.append(.pointerNotOffset(tag: pointer, layout: layout))
        continue
      }
      store(self.directory(at: offset), as: target, into: &table)
    }
    return table
  }

  private mutating func store(
    _ entries: [Entry], as directory: EXIFDirectory, into table: inout EXIFTagTable
  ) {
    table.entryCounts[directory] = entries.count
    for entry in entries where EXIFTag.walked.contains(.init(directory: directory, tag: entry.tag))
    {
      if let value = value(of: entry) {
        table.values[.init(directory: directory, tag: entry.tag)] = value
      } else {
        faults.append(.valueOutOfBounds(tag: entry.tag, layout: layout))
      }
    }
  }

  /// The most entries looked at per directory when locating the MakerNote.
  static var maximumMakerNoteSearch: Int { 1024 }

  /// The raw bytes of the EXIF `MakerNote` (tag 0x927C in the EXIF IFD), for
  /// ``AppleMakerNote``: libexif decodes the tags the engine needs, but this one is
  /// wanted byte for byte.
  ///
  /// - Returns: The MakerNote (type `UNDEFINED` or `BYTE`), or `nil` when there is none
  ///   or it lies out of bounds.
  /// - Complexity: O(*n*) in the number of entries of IFD0 and the EXIF IFD, at most
  ///   ``maximumMakerNoteSearch`` each.
  func makerNote() -> [UInt8]? {
    func entry(_ tag: UInt16, inDirectoryAt offset: UInt64) -> Entry? {
      let found = try? entries(inDirectoryAt: offset, limit: Self.maximumMakerNoteSearch)
      return found?.entries.first { $0.tag == tag }
    }
    guard let pointer = entry(EXIFTag.exifIFDPointer, inDirectoryAt: firstDirectoryOffset),
      let exifOffset = fieldOffset(of: pointer),
      let note = entry(EXIFTag.makerNote, inDirectoryAt: exifOffset),
      note.type == 7 || note.type == 1, note.count > 0
    else { return nil }
    return rawValue(of: note, maximumLength: Int.max)
  }
}
