/// The box and handler types the QuickTime reader looks for, from the ISO base media file
/// format and QuickTime.
extension FourCharacterCode {
  static let movieHeader = FourCharacterCode(0x6D, 0x76, 0x68, 0x64)  // mvhd
  static let track = FourCharacterCode(0x74, 0x72, 0x61, 0x6B)  // trak
  static let trackHeader = FourCharacterCode(0x74, 0x6B, 0x68, 0x64)  // tkhd
  static let media = FourCharacterCode(0x6D, 0x64, 0x69, 0x61)  // mdia
  static let userData = FourCharacterCode(0x75, 0x64, 0x74, 0x61)  // udta
  static let metadataKeys = FourCharacterCode(0x6B, 0x65, 0x79, 0x73)  // keys
  static let metadataItemList = FourCharacterCode(0x69, 0x6C, 0x73, 0x74)  // ilst
  static let data = FourCharacterCode(0x64, 0x61, 0x74, 0x61)  // data
  static let userDataLocation = FourCharacterCode(0xA9, 0x78, 0x79, 0x7A)  // ©xyz
  static let userDataMake = FourCharacterCode(0xA9, 0x6D, 0x61, 0x6B)  // ©mak
  static let userDataModel = FourCharacterCode(0xA9, 0x6D, 0x6F, 0x64)  // ©mod
  static let userDataDate = FourCharacterCode(0x64, 0x61, 0x74, 0x65)  // date
  static let goProMetadata = FourCharacterCode(0x47, 0x50, 0x4D, 0x46)  // GPMF
  static let videoHandler = FourCharacterCode(0x76, 0x69, 0x64, 0x65)  // vide
  static let soundHandler = FourCharacterCode(0x73, 0x6F, 0x75, 0x6E)  // soun
  static let metadataHandler = FourCharacterCode(0x6D, 0x64, 0x74, 0x61)  // mdta
  static let itunesMetadataHandler = FourCharacterCode(0x6D, 0x64, 0x69, 0x72)  // mdir
  static let locationInformation = FourCharacterCode(0x6C, 0x6F, 0x63, 0x69)  // loci
}
