/// A full box (a box whose content starts with a version byte and 24 bits of flags) of
/// version 0 or 1, where version 1
/// widens times and durations to 64 bits, so that its fixed layout is longer: `mvhd`,
/// `tkhd`, `mdhd`.
protocol TwoVersionFullBox {
  /// The content length of the fixed fields, version and flags included, per version.
  static var requiredLengths: (version0: Int, version1: Int) { get }
}

extension TwoVersionFullBox {
  /// The content length a version's fixed fields take.
  static func requiredLength(version: UInt8) -> Int {
    version == 1 ? requiredLengths.version1 : requiredLengths.version0
  }

  /// How many content bytes a reader loads: enough for either version.
  static var loadLength: Int { max(requiredLengths.version0, requiredLengths.version1) }
}
