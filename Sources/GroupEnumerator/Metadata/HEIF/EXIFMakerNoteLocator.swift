/// Finds the raw bytes of the EXIF `MakerNote` (tag 0x927C in the EXIF IFD) in a TIFF
/// block, for ``AppleMakerNote``: libexif decodes the tags the engine needs, but this
/// one is wanted byte for byte.
///
/// EXIF 2.32 (CIPA DC-008) §4.5.2 and §4.6.3: a TIFF header (`II` or `MM`, 42, the IFD0
/// offset); IFD0's tag 0x8769 points to the EXIF IFD; each IFD is a 2-byte count and
/// 12-byte entries (tag, type, count, value or offset), offsets counting from the TIFF
/// header. Every read is bounds-checked and at most ``maximumEntries`` entries are
/// looked at per directory.
enum EXIFMakerNoteLocator {
  /// The MakerNote tag.
  static let makerNoteTag: UInt16 = 0x927C
  /// Entries looked at per directory.
  static let maximumEntries = 1024

  /// The MakerNote's bytes in `tiff`, or `nil` when it has none or it lies out of bounds.
  ///
  /// - Parameter tiff: The TIFF block, starting with its byte-order mark.
  /// - Complexity: O(*n*) in the number of entries of IFD0 and the EXIF IFD.
  static func makerNote(inTIFF tiff: [UInt8]) -> [UInt8]? {
    guard tiff.count >= 8 else { return nil }
    let isBigEndian: Bool
    switch (tiff[0], tiff[1]) {
    case (0x4D, 0x4D): isBigEndian = true
    case (0x49, 0x49): isBigEndian = false
    default: return nil
    }
    func number(at offset: Int, size: Int) -> UInt32? {
      guard offset >= 0, size <= 4, offset <= tiff.count - size else { return nil }
      let field = tiff[offset..<(offset + size)]
      let ordered = isBigEndian ? Array(field) : field.reversed()
      return ordered.reduce(0) { $0 << 8 | UInt32($1) }
    }
    /// The entry for `tag` in the directory at `offset`: its type, count and value field.
    func entry(_ tag: UInt16, inDirectoryAt offset: UInt32) -> (UInt32, UInt32, Int)? {
      guard let start = Int(exactly: offset), let count = number(at: start, size: 2) else {
        return nil
      }
      for index in 0..<min(Int(count), maximumEntries) {
        let position = start + 2 + index * 12
        guard let found = number(at: position, size: 2),
          let type = number(at: position + 2, size: 2),
          let components = number(at: position + 4, size: 4)
        else { return nil }
        if found == tag { return (type, components, position + 8) }
      }
      return nil
    }
    guard let ifd0 = number(at: 4, size: 4),
      let pointer = entry(EXIFTag.exifIFDPointer, inDirectoryAt: ifd0),
      let exifOffset = number(at: pointer.2, size: 4),
      let note = entry(makerNoteTag, inDirectoryAt: exifOffset)
    else { return nil }
    // UNDEFINED (7) or BYTE (1): one byte per component.
    guard note.0 == 7 || note.0 == 1, let length = Int(exactly: note.1), length > 0 else {
      return nil
    }
    var start = note.2
    if length > 4 {
      guard let offset = number(at: note.2, size: 4), let value = Int(exactly: offset) else {
        return nil
      }
      start = value
    }
    guard start <= tiff.count, length <= tiff.count - start else { return nil }
    return Array(tiff[start..<(start + length)])
  }
}
