/// Samsung's trailer: fields appended after the image data of a JPEG or HEIC, located by
/// a directory at the very end of the file. A Samsung motion photo keeps its video there,
/// in the field named `MotionPhoto_Data`.
///
/// Layout (all integers little-endian), read from the end:
/// - the file ends with the directory's length (`UInt32`) and `SEFT`;
/// - the directory: `SEFH`, a version, an entry count, then 12 bytes per entry: two zero
///   bytes, a field type (`UInt16`, `0x0A30` for the motion photo's video), the field's
///   distance back from the directory's start, and the field's length;
/// - each field: the same four type bytes, a name length, the name, then the data.
///
/// Every number is checked against the file before it is used; a trailer that does not
/// add up is reported as absent, never trusted.
enum SamsungTrailer {
  /// The field type of the embedded video.
  static let motionPhotoFieldType: UInt16 = 0x0A30
  /// The name of that field.
  static let motionPhotoFieldName = Array("MotionPhoto_Data".utf8)
  /// The most directory entries read; a directory claiming more is not believed.
  static let maximumEntries = 256

  /// The byte range of the motion photo's video inside `source`.
  ///
  /// - Parameter imageEnd: Where the image data ends: the video must lie after it.
  /// - Returns: `nil` when the file has no Samsung trailer, or none with a video.
  /// - Throws: An ``AssetProblem`` when a read fails.
  static func videoRange(in source: some ByteSource, imageEnd: Int) throws(AssetProblem)
    -> Range<Int>?
  {
    let size = source.count
    guard size >= 8 + 12, imageEnd >= 0 else { return nil }
    let tail = try source.bytes(at: size - 8, length: 8)
    guard tail.count == 8, Array(tail[4..<8]) == Array("SEFT".utf8) else { return nil }
    let directoryLength = Int(le32(tail, at: 0))
    let directoryStart = size - 8 - directoryLength
    guard directoryLength >= 12, directoryLength <= 12 + 12 * maximumEntries,
      directoryStart >= imageEnd
    else { return nil }
    let directory = try source.bytes(at: directoryStart, length: directoryLength)
    guard directory.count == directoryLength, Array(directory[0..<4]) == Array("SEFH".utf8)
    else { return nil }
    let entries = Int(le32(directory, at: 8))
    guard entries <= maximumEntries, 12 + 12 * entries <= directoryLength else { return nil }
    for index in 0..<entries {
      let entry = 12 + 12 * index
      let type = le.uint16(directory, at: entry + 2)
      guard type == motionPhotoFieldType else { continue }
      let distance = Int(le32(directory, at: entry + 4))
      let length = Int(le32(directory, at: entry + 8))
      let fieldStart = directoryStart - distance
      guard distance > 0, length >= 8, length <= distance, fieldStart >= imageEnd else {
        return nil
      }
      let header = try source.bytes(at: fieldStart, length: 8 + motionPhotoFieldName.count)
      guard header.count >= 8 else { return nil }
      let nameLength = Int(le32(header, at: 4))
      guard nameLength == motionPhotoFieldName.count, header.count == 8 + nameLength,
        Array(header[8...]) == motionPhotoFieldName, 8 + nameLength < length
      else { return nil }
      return (fieldStart + 8 + nameLength)..<(fieldStart + length)
    }
    return nil
  }

  private static let le = IntegerReader.littleEndian

  /// The little-endian `UInt32` at `offset` of `bytes` (the caller checked the bounds; 0
  /// past them).
  private static func le32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    le.uint32(bytes, at: offset) ?? 0
  }

}
