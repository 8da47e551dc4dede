/// The EXIF and TIFF tag numbers the readers interpret, with the directory each lives in.
///
/// The numbers are the ones EXIF (version 2.32) assigns.
enum EXIFTag {
  // IFD0 (TIFF)
  static let imageWidth: UInt16 = 0x0100
  static let imageLength: UInt16 = 0x0101
  static let make: UInt16 = 0x010F
  static let model: UInt16 = 0x0110
  static let orientation: UInt16 = 0x0112
  static let dateTime: UInt16 = 0x0132
  static let jpegInterchangeFormat: UInt16 = 0x0201
  static let jpegInterchangeFormatLength: UInt16 = 0x0202
  static let exifIFDPointer: UInt16 = 0x8769
  static let gpsInfoIFDPointer: UInt16 = 0x8825

  // EXIF IFD (DateTimeOriginal is also accepted in IFD0, where some writers put it)
  static let dateTimeOriginal: UInt16 = 0x9003
  static let dateTimeDigitized: UInt16 = 0x9004
  static let offsetTime: UInt16 = 0x9010
  static let offsetTimeOriginal: UInt16 = 0x9011
  static let offsetTimeDigitized: UInt16 = 0x9012
  static let subSecTime: UInt16 = 0x9290
  static let subSecTimeOriginal: UInt16 = 0x9291
  static let subSecTimeDigitized: UInt16 = 0x9292
  static let pixelXDimension: UInt16 = 0xA002
  static let pixelYDimension: UInt16 = 0xA003
  static let makerNote: UInt16 = 0x927C
  static let lensModel: UInt16 = 0xA434

  // GPS IFD
  static let gpsLatitudeRef: UInt16 = 0x0001
  static let gpsLatitude: UInt16 = 0x0002
  static let gpsLongitudeRef: UInt16 = 0x0003
  static let gpsLongitude: UInt16 = 0x0004
  static let gpsAltitudeRef: UInt16 = 0x0005
  static let gpsAltitude: UInt16 = 0x0006

  /// IFD0's `ImageWidth` and `ImageLength`, which TIFF requires: the stored size of a TIFF
  /// image, which readers of TIFF-structured files (CR3, BigTIFF) decode themselves; the
  /// interpreter does not use them.
  static let imageSize: [EXIFTagTable.Key] = [
    .init(directory: .ifd0, tag: imageWidth), .init(directory: .ifd0, tag: imageLength),
  ]

  /// Every tag the interpreter may ask for, by directory: what a reader needs to decode.
  static let interpreted: [EXIFTagTable.Key] = {
    let ifd0: [UInt16] = [
      orientation, dateTime, dateTimeOriginal, offsetTime, offsetTimeOriginal,
      subSecTimeOriginal, make, model,
    ]
    let exif: [UInt16] = [
      dateTimeOriginal, dateTimeDigitized, offsetTime, offsetTimeOriginal, offsetTimeDigitized,
      subSecTimeOriginal, subSecTimeDigitized, pixelXDimension, pixelYDimension, makerNote,
      lensModel,
    ]
    let gps: [UInt16] = [
      gpsLatitudeRef, gpsLatitude, gpsLongitudeRef, gpsLongitude, gpsAltitudeRef, gpsAltitude,
    ]
    return ifd0.map { .init(directory: .ifd0, tag: $0) }
      + exif.map { .init(directory: .exif, tag: $0) }
      + gps.map { .init(directory: .gps, tag: $0) }
  }()

  /// The tags decoded by the TIFF walker (``TIFFDirectoryWalker/read()``): those the
  /// interpreter reads, and IFD0's image size.
  static let walked = Set(interpreted + imageSize)
}
