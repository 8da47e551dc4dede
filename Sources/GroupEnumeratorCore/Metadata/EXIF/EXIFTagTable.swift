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
  /// Whether an IFD1 thumbnail was found whose bytes lie inside the EXIF block and start
  /// like a JPEG (`FF D8`).
  var hasThumbnail = false
  /// The length of IFD1 "thumbnail" bytes that are not a JPEG (they do not start with the
  /// SOI marker `FF D8`), when the block has such bytes: not offered as a thumbnail.
  var nonJPEGThumbnailLength: Int?

  /// The value of `tag` in `directory`, if present.
  subscript(directory: EXIFDirectory, tag: UInt16) -> TIFFValue? {
    values[Key(directory: directory, tag: tag)]
  }
}

extension EXIFTagTable {
  /// Decoded values by key, in the order first stored, searched linearly: a block yields
  /// a few dozen interpreted tags at most, and hashing each key (as a dictionary does)
  /// cost more than the search.
  struct Values: Sendable, Sequence {
    private var entries: [(key: Key, value: TIFFValue)] = []

    /// The value stored for `key`; storing `nil` removes it.
    subscript(key: Key) -> TIFFValue? {
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

    func makeIterator() -> IndexingIterator<[(key: Key, value: TIFFValue)]> {
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
