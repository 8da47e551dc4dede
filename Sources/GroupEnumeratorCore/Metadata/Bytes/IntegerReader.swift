/// The order of a multi-byte number's bytes in a file.
enum ByteOrder: Sendable, Hashable {
  /// Most significant byte first: TIFF's `MM`, and every number in JPEG markers, PNG
  /// chunks and ISO base media boxes.
  case bigEndian
  /// Least significant byte first: TIFF's `II`.
  case littleEndian
}

/// Reads fixed-width unsigned integers out of bytes in one ``ByteOrder``, bounds-checked:
/// a read that would run past the end gives `nil`, never a trap.
///
/// Every reader of a binary format decodes its numbers through this one type. A read
/// loads the bytes in place (`loadUnaligned`) and converts them with the standard
/// library's `init(bigEndian:)` or `init(littleEndian:)`; it allocates nothing.
/// Offsets count from the start of the bytes given (a slice's `startIndex` is offset 0).
struct IntegerReader: Sendable, Hashable {
  /// The byte order numbers are read in.
  let byteOrder: ByteOrder

  /// A reader of big-endian numbers.
  static let bigEndian = IntegerReader(byteOrder: .bigEndian)
  /// A reader of little-endian numbers.
  static let littleEndian = IntegerReader(byteOrder: .littleEndian)

  /// The reader for a TIFF byte-order mark: `MM` (big-endian) or `II` (little-endian).
  ///
  /// - Returns: `nil` when the two bytes are neither.
  init?(tiffByteOrderMark first: UInt8?, _ second: UInt8?) {
    switch (first, second) {
    case (0x4D, 0x4D): byteOrder = .bigEndian
    case (0x49, 0x49): byteOrder = .littleEndian
    default: return nil
    }
  }

  /// Creates a reader for `byteOrder`.
  init(byteOrder: ByteOrder) { self.byteOrder = byteOrder }

  /// The integer of type `T` at `offset`, or `nil` when it does not lie wholly inside
  /// `bytes`.
  func read<T: FixedWidthInteger & UnsignedInteger>(
    _: T.Type, at offset: Int, in bytes: ArraySlice<UInt8>
  ) -> T? {
    bytes.withUnsafeBytes { read(T.self, at: offset, in: $0) }
  }

  /// The integer of type `T` at `offset` of raw memory, or `nil` when it does not lie
  /// wholly inside `bytes`.
  func read<T: FixedWidthInteger & UnsignedInteger>(
    _: T.Type, at offset: Int, in bytes: UnsafeRawBufferPointer
  ) -> T? {
    let width = MemoryLayout<T>.size
    guard offset >= 0, offset <= bytes.count - width else { return nil }
    let stored = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    return byteOrder == .bigEndian ? T(bigEndian: stored) : T(littleEndian: stored)
  }

  /// The 16-bit value at `offset`, or `nil` past the end.
  func uint16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16? {
    read(UInt16.self, at: offset, in: bytes)
  }

  /// The 32-bit value at `offset`, or `nil` past the end.
  func uint32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32? {
    read(UInt32.self, at: offset, in: bytes)
  }

  /// The 64-bit value at `offset`, or `nil` past the end.
  func uint64(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64? {
    read(UInt64.self, at: offset, in: bytes)
  }

  /// The unsigned integer of `width` bytes (1, 2, 4 or 8) at `offset`, widened.
  ///
  /// - Returns: `nil` past the end, and for any other width.
  func unsigned(_ bytes: ArraySlice<UInt8>, at offset: Int, width: Int) -> UInt64? {
    switch width {
    case 1: read(UInt8.self, at: offset, in: bytes).map(UInt64.init)
    case 2: read(UInt16.self, at: offset, in: bytes).map(UInt64.init)
    case 4: read(UInt32.self, at: offset, in: bytes).map(UInt64.init)
    case 8: read(UInt64.self, at: offset, in: bytes)
    default: nil
    }
  }

  /// The 16-bit value at `offset` of an array, or `nil` past the end.
  func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? { uint16(bytes[...], at: offset) }

  /// The 32-bit value at `offset` of an array, or `nil` past the end.
  func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? { uint32(bytes[...], at: offset) }

  /// The 64-bit value at `offset` of an array, or `nil` past the end.
  func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64? { uint64(bytes[...], at: offset) }

  /// The unsigned integer of `width` bytes (1, 2, 4 or 8) at `offset` of an array.
  func unsigned(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64? {
    unsigned(bytes[...], at: offset, width: width)
  }
}
