extension FourCharacterCode {
  /// `mpvd`: the top-level box in which Samsung and Google phones keep a HEIC motion
  /// photo's video (an MP4, whole).
  static let motionPhotoVideo = FourCharacterCode(0x6D, 0x70, 0x76, 0x64)
  /// `pitm`: the primary item box, which names the item that is the image.
  static let primaryItem = FourCharacterCode(0x70, 0x69, 0x74, 0x6D)
  /// `iinf`: the item information box, the list of items.
  static let itemInfo = FourCharacterCode(0x69, 0x69, 0x6E, 0x66)
  /// `infe`: one item's information entry (its ID and type).
  static let itemInfoEntry = FourCharacterCode(0x69, 0x6E, 0x66, 0x65)
  /// `iloc`: the item location box, where each item's bytes are.
  static let itemLocation = FourCharacterCode(0x69, 0x6C, 0x6F, 0x63)
  /// `iref`: the item reference box, typed links between items.
  static let itemReference = FourCharacterCode(0x69, 0x72, 0x65, 0x66)
  /// `idat`: item data kept inside the `meta` box itself.
  static let itemData = FourCharacterCode(0x69, 0x64, 0x61, 0x74)
  /// `iprp`: the item properties box (`ipco` and `ipma`).
  static let itemProperties = FourCharacterCode(0x69, 0x70, 0x72, 0x70)
  /// `ipco`: the container of the properties items share.
  static let itemPropertyContainer = FourCharacterCode(0x69, 0x70, 0x63, 0x6F)
  /// `ipma`: which properties belong to which item.
  static let itemPropertyAssociation = FourCharacterCode(0x69, 0x70, 0x6D, 0x61)
  /// `ispe`: an image's width and height.
  static let imageSpatialExtents = FourCharacterCode(0x69, 0x73, 0x70, 0x65)
  /// `irot`: an image's rotation, in quarter turns.
  static let imageRotation = FourCharacterCode(0x69, 0x72, 0x6F, 0x74)
  /// `imir`: an image's mirroring axis.
  static let imageMirror = FourCharacterCode(0x69, 0x6D, 0x69, 0x72)
  /// `pict`, the handler of a `meta` box that holds images.
  static let pictureHandler = FourCharacterCode(0x70, 0x69, 0x63, 0x74)
  /// `Exif`, the item type of an EXIF metadata item.
  static let exifItem = FourCharacterCode(0x45, 0x78, 0x69, 0x66)
  /// `mime`: an item of a MIME content type (XMP is `application/rdf+xml`).
  static let mimeItem = FourCharacterCode(0x6D, 0x69, 0x6D, 0x65)
  /// `grid`, the item type of a derived image made of tiles.
  static let gridItem = FourCharacterCode(0x67, 0x72, 0x69, 0x64)
  /// `cdsc`, the reference from a metadata item to the item it describes.
  static let contentDescribes = FourCharacterCode(0x63, 0x64, 0x73, 0x63)
}
