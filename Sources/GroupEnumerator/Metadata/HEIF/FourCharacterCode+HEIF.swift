extension FourCharacterCode {
  /// `mpvd`: the top-level box in which Samsung and Google phones keep a HEIC motion
  /// photo's video (an MP4, whole).
  static let motionPhotoVideo = FourCharacterCode(0x6D, 0x70, 0x76, 0x64)
  /// `pitm`, ISO/IEC 14496-12 §8.11.4.
  static let primaryItem = FourCharacterCode(0x70, 0x69, 0x74, 0x6D)
  /// `iinf`, ISO/IEC 14496-12 §8.11.6.
  static let itemInfo = FourCharacterCode(0x69, 0x69, 0x6E, 0x66)
  /// `infe`, ISO/IEC 14496-12 §8.11.6.
  static let itemInfoEntry = FourCharacterCode(0x69, 0x6E, 0x66, 0x65)
  /// `iloc`, ISO/IEC 14496-12 §8.11.3.
  static let itemLocation = FourCharacterCode(0x69, 0x6C, 0x6F, 0x63)
  /// `iref`, ISO/IEC 14496-12 §8.11.12.
  static let itemReference = FourCharacterCode(0x69, 0x72, 0x65, 0x66)
  /// `idat`, ISO/IEC 14496-12 §8.11.11.
  static let itemData = FourCharacterCode(0x69, 0x64, 0x61, 0x74)
  /// `iprp`, ISO/IEC 14496-12 §8.11.14.
  static let itemProperties = FourCharacterCode(0x69, 0x70, 0x72, 0x70)
  /// `ipco`, ISO/IEC 14496-12 §8.11.14.
  static let itemPropertyContainer = FourCharacterCode(0x69, 0x70, 0x63, 0x6F)
  /// `ipma`, ISO/IEC 14496-12 §8.11.14.
  static let itemPropertyAssociation = FourCharacterCode(0x69, 0x70, 0x6D, 0x61)
  /// `ispe`, ISO/IEC 23008-12 §6.5.3.
  static let imageSpatialExtents = FourCharacterCode(0x69, 0x73, 0x70, 0x65)
  /// `irot`, ISO/IEC 23008-12 §6.5.10.
  static let imageRotation = FourCharacterCode(0x69, 0x72, 0x6F, 0x74)
  /// `imir`, ISO/IEC 23008-12 §6.5.12.
  static let imageMirror = FourCharacterCode(0x69, 0x6D, 0x69, 0x72)
  /// `pict`, the handler of a `meta` box that holds images (ISO/IEC 23008-12 §6.2).
  static let pictureHandler = FourCharacterCode(0x70, 0x69, 0x63, 0x74)
  /// `Exif`, the item type of an EXIF metadata item (ISO/IEC 23008-12 Annex A.2.1).
  static let exifItem = FourCharacterCode(0x45, 0x78, 0x69, 0x66)
  /// `grid`, the item type of a derived image made of tiles (ISO/IEC 23008-12 §6.6.2.3).
  /// `mime`: an item of a MIME content type (XMP is `application/rdf+xml`).
  static let mimeItem = FourCharacterCode(0x6D, 0x69, 0x6D, 0x65)
  static let gridItem = FourCharacterCode(0x67, 0x72, 0x69, 0x64)
  /// `cdsc`, the reference from a metadata item to the item it describes
  /// (ISO/IEC 14496-12 §8.11.12).
  static let contentDescribes = FourCharacterCode(0x63, 0x64, 0x73, 0x63)
}
