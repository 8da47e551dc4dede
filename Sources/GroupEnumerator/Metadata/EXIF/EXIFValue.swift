/// An unsigned EXIF `RATIONAL`: two unsigned 32-bit integers, as stored.
struct EXIFRational: Hashable, Sendable {
  var numerator: UInt32
  var denominator: UInt32
}

/// A signed EXIF `SRATIONAL`: two signed 32-bit integers, as stored.
struct EXIFSignedRational: Hashable, Sendable {
  var numerator: Int32
  var denominator: Int32
}

/// The EXIF image file directories the readers look tags up in.
///
/// A tag number means different things in different directories (GPS tag 0x0001 is
/// `GPSLatitudeRef`, Interoperability tag 0x0001 is `InteroperabilityIndex`), so every
/// lookup names its directory.
enum EXIFDirectory: Hashable, Sendable, CaseIterable {
  /// IFD0, the main image's TIFF directory.
  case ifd0
  /// The EXIF sub-IFD (`ExifIFDPointer`, 0x8769).
  case exif
  /// The GPS sub-IFD (`GPSInfoIFDPointer`, 0x8825).
  case gps
  /// IFD1, the thumbnail's directory.
  case ifd1
}

/// One tag's value, decoded from its raw bytes according to its stored TIFF type.
///
/// Only the types the readers interpret are decoded; anything else is kept as its type
/// number so that a reader can say it was the wrong type.
enum EXIFValue: Hashable, Sendable {
  /// TIFF type 1, `BYTE`.
  case byte([UInt8])
  /// TIFF type 2, `ASCII`: the stored bytes, with no assumption of a terminating NUL.
  case ascii([UInt8])
  /// TIFF type 3, `SHORT`.
  case short([UInt16])
  /// TIFF type 4, `LONG`.
  case long([UInt32])
  /// TIFF type 7, `UNDEFINED`: raw bytes (at most ``EXIFValue/maximumUndefinedLength``).
  case undefined([UInt8])
  /// TIFF type 9, `SLONG`.
  case signedLong([Int32])
  /// TIFF type 5, `RATIONAL`.
  case rational([EXIFRational])
  /// TIFF type 10, `SRATIONAL`.
  case signedRational([EXIFSignedRational])
  /// Any other type, by its TIFF type number.
  case other(type: UInt16)

  /// The most bytes an `UNDEFINED` value keeps (a MakerNote is read only for its
  /// content identifier, which sits in its first few hundred bytes).
  static let maximumUndefinedLength = 65_536

  /// The value's `RATIONAL`s; an `SRATIONAL` value counts when no part is negative (some
  /// writers store GPS coordinates signed).
  var unsignedRationals: [EXIFRational]? {
    switch self {
    case .rational(let parts): return parts
    case .signedRational(let parts):
      guard parts.allSatisfy({ $0.numerator >= 0 && $0.denominator >= 0 }) else { return nil }
      return parts.map {
        EXIFRational(
          numerator: UInt32(truncatingIfNeeded: $0.numerator),
          denominator: UInt32(truncatingIfNeeded: $0.denominator))
      }
    default: return nil
    }
  }

  /// The single unsigned integer of a one-component `SHORT` or `LONG` value.
  var singleInteger: Int? {
    switch self {
    case .short(let values) where values.count == 1: values.first.map { Int($0) }
    case .long(let values) where values.count == 1: values.first.map { Int($0) }
    case .signedLong(let values) where values.count == 1: values.first.map { Int($0) }
    default: nil
    }
  }
}

/// The tags a reader found, keyed by directory and tag number.
struct EXIFTagTable: Sendable {
  /// The key of one tag: its directory and its number.
  struct Key: Hashable, Sendable {
    var directory: EXIFDirectory
    var tag: UInt16
  }

  /// The decoded values.
  var values = Values()
  /// How many entries each directory held (including tags that were not decoded).
  var entryCounts = EntryCounts()
  /// Whether an IFD1 thumbnail was found whose bytes lie inside the EXIF block.
  var hasThumbnail = false

  /// The value of `tag` in `directory`, if present.
  subscript(directory: EXIFDirectory, tag: UInt16) -> EXIFValue? {
    values[Key(directory: directory, tag: tag)]
  }
}

extension EXIFTagTable {
  /// Decoded values by key, in the order first stored, searched linearly: a block yields
  /// a few dozen interpreted tags at most, and hashing each key (as a dictionary does)
  /// cost more than the search.
  struct Values: Sendable, Sequence {
    private var entries: [(key: Key, value: EXIFValue)] = []

    /// The value stored for `key`; storing `nil` removes it.
    subscript(key: Key) -> EXIFValue? {
      get { entries.first { $0.key == key }?.value }
      set {
        let index = entries.firstIndex { $0.key == key }
        switch (index, newValue) {
        case (let index?, let value?): entries[index].value = value
        case (let index?, nil): entries.remove(at: index)
        case (nil, let value?): entries.append((key, value))
        case (nil, nil): break
        }
      }
    }

    func makeIterator() -> IndexingIterator<[(key: Key, value: EXIFValue)]> {
      entries.makeIterator()
    }
  }

  /// An entry count per directory, `nil` for a directory not read.
  struct EntryCounts: Sendable {
    private var ifd0: Int?
    private var exif: Int?
    private var gps: Int?
    private var ifd1: Int?

    subscript(directory: EXIFDirectory) -> Int? {
      get {
        switch directory {
        case .ifd0: ifd0
        case .exif: exif
        case .gps: gps
        case .ifd1: ifd1
        }
      }
      set {
        switch directory {
        case .ifd0: ifd0 = newValue
        case .exif: exif = newValue
        case .gps: gps = newValue
        case .ifd1: ifd1 = newValue
        }
      }
    }

    subscript(directory: EXIFDirectory, default value: Int) -> Int {
      get { self[directory] ?? value }
      set { self[directory] = newValue }
    }

    /// The counts of the directories read.
    var values: [Int] { [ifd0, exif, gps, ifd1].compactMap { $0 } }
  }
}
