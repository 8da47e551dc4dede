import Foundation

/// An asset as the index stores it: everything ``AssetReader`` produced for one file,
/// except what comes from the walk (the path, the group, the sidecar resources), in a
/// small versioned binary form.
///
/// The form: a version byte (``version``), whether the file's end was checked (a byte, 0
/// or 1: ``LibraryOptions/verifiesFileEnds``), then the fields in a fixed order, integers as
/// zig-zag LEB128, doubles as their IEEE bits, text and bytes with their length first, an
/// optional value after a presence byte. Decoding checks every length and value and
/// returns `nil` on anything unexpected, so a damaged row is read again, never trusted:
/// also each value against what a reader can produce (``Bounds``) and against the file
/// as the walk sees it now (a resource's size is the file's, a byte range lies in it).
enum StoredResult {
  /// The version of the form; a row of another version is read again.
  static let version: UInt8 = 2

  /// The stored form of `asset`, read from a file with `sidecarCount` sidecar resources
  /// (listed last among its resources), by a run that checked every file's end or not
  /// (`checkedEnd`).
  static func encode(_ asset: Asset, sidecarCount: Int, checkedEnd: Bool = false) -> [UInt8] {
    var writer = Writer()
    writer.byte(version)
    writer.byte(checkedEnd ? 1 : 0)
    writer.text(asset.type.rawValue)
    writer.double(asset.fileModificationDate.timeIntervalSinceReferenceDate)
    let own = asset.resources.dropLast(sidecarCount)
    writer.integer(own.count)
    for resource in own {
      writer.bytes(resource.path.bytes)
      writer.text(resource.role.rawValue)
      writer.optional(resource.format) { $0.text($1.rawValue) }
      writer.integer(resource.fileSize)
      writer.optional(resource.byteRange) {
        $0.integer($1.lowerBound)
        $0.integer($1.upperBound)
      }
    }
    let metadata = asset.metadata
    let extra = asset.problems.dropFirst(metadata.problems.count)
    writer.problems(Array(extra))
    writer.metadata(metadata)
    return writer.output
  }

  /// What a reader can produce, so what a decoded value must be within: a stored row
  /// that says otherwise was not written by this code (a crafted or damaged index).
  enum Bounds {
    /// Pixel sizes: every format stores them in at most 32 bits.
    static let side = 0...Int(UInt32.max)
    /// Seconds: a 64-bit count of units, each at least a second's 2^32th… and at most a
    /// second, as `mvhd` and AVI give them; never negative, never infinite.
    static let duration = 0...Double(UInt64.max)
    /// A modification time, in seconds from 2001: years 1 to 9999, what a `Date` prints.
    static let time = -63_113_904_000.0...252_423_993_599.0
  }

  /// The asset of `job` from its stored form and the sidecars the walk found now.
  ///
  /// - Parameters:
  ///   - fileSize: The file's size now (its key's), when known: the first resource (the
  ///     file itself) must have it, and byte ranges must lie within it.
  ///   - needsCheckedEnd: Whether the run checks every file's end: then a row stored by a
  ///     run that did not is not taken (the file is read, and checked, again).
  /// - Returns: `nil` when `bytes` is not a well-formed value of this ``version``, a value
  ///   is out of ``Bounds`` or does not fit the file, or its file's end was not checked
  ///   and `needsCheckedEnd`.
  static func decode(
    _ bytes: ArraySlice<UInt8>, job: ReadJob, fileSize: Int64? = nil,
    needsCheckedEnd: Bool = false
  ) -> Asset? {
    bytes.withUnsafeBufferPointer {
      decode(Reader(bytes: $0), job: job, fileSize: fileSize, needsCheckedEnd: needsCheckedEnd)
    }
  }

  /// ``decode(_:job:fileSize:needsCheckedEnd:)`` from `reader`, which reads the bytes in
  /// place.
  private static func decode(
    _ reader: consuming Reader, job: ReadJob, fileSize: Int64?, needsCheckedEnd: Bool
  ) -> Asset? {
    guard reader.byte() == version, let checked = reader.byte(), checked <= 1,
      checked == 1 || !needsCheckedEnd,
      let type = reader.named(Names.types),
      let time = reader.double(), Bounds.time.contains(time),
      let count = reader.integer(), (0...16).contains(count)
    else { return nil }
    var resources: [AssetResource] = []
    resources.reserveCapacity(count + job.file.sidecars.count)
    for _ in 0..<count {
      guard let path = reader.path(sameAs: job.file.path), let role = reader.named(Names.roles),
        let format = reader.optional({ $0.named(Names.formats) }),
        let size = reader.integer(), size >= 0,
        // The file itself, listed first, has the size it has now (its key matched).
        !resources.isEmpty || fileSize == nil || Int64(size) == fileSize,
        let range = reader.optional({ reader -> Range<Int64>? in
          // A range inside the file (the video of a motion photo).
          let bound = fileSize ?? resources.first?.fileSize ?? Int64(size)
          guard let lower = reader.integer(), let upper = reader.integer(), 0 <= lower,
            lower <= upper, Int64(upper) <= bound
          else { return nil }
          return Int64(lower)..<Int64(upper)
        })
      else { return nil }
      resources.append(
        AssetResource(
          path: path, role: role, format: format, fileSize: Int64(size), byteRange: range))
    }
    let bound = fileSize ?? resources.first?.fileSize ?? 0
    resources += job.file.sidecars
    guard let extra = reader.problems(), let metadata = reader.metadata(), reader.isAtEnd,
      metadata.isWithinBounds(fileSize: Int(bound))
    else { return nil }
    return Asset(
      path: job.file.path, group: job.group.kind, groupPath: job.group.path, type: type,
      resources: resources,
      fileModificationDate: Date(timeIntervalSinceReferenceDate: time), metadata: metadata,
      problems: extra)
  }

  /// The names of the enumerations a stored result holds, as ``Reader/named(_:)`` reads
  /// them.
  enum Names {
    static let types = NameTable(AssetType.allCases)
    static let roles = NameTable(AssetResource.Role.allCases)
    static let formats = NameTable(MediaFormat.allCases)
    static let sources = NameTable(CaptureDate.Source.allCases)
    static let codes = NameTable(AssetProblem.Code.allCases)
  }

  /// The cases of an enumeration by the UTF-8 bytes of their raw values.
  struct NameTable<Value: Sendable>: Sendable {
    private let entries: [(name: [UInt8], value: Value)]

    init(_ cases: some Collection<Value>) where Value: RawRepresentable<String> {
      entries = cases.map { (Array($0.rawValue.utf8), $0) }
    }

    /// The case whose raw value's bytes are `name`.
    func value(named name: UnsafeBufferPointer<UInt8>) -> Value? {
      for entry in entries where entry.name.count == name.count {
        if entry.name.withUnsafeBufferPointer({ $0.elementsEqual(name) }) { return entry.value }
      }
      return nil
    }
  }

  // MARK: - Writing

  struct Writer {
    var output: [UInt8] = []

    mutating func byte(_ value: UInt8) { output.append(value) }

    mutating func integer<Value: BinaryInteger>(_ value: Value) {
      let signed = Int64(truncatingIfNeeded: value)
      var zigzag = UInt64(bitPattern: (signed << 1) ^ (signed >> 63))
      while zigzag >= 0x80 {
        output.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
        zigzag >>= 7
      }
      output.append(UInt8(zigzag))
    }

    mutating func double(_ value: Double) {
      var bits = value.bitPattern
      for _ in 0..<8 {
        output.append(UInt8(truncatingIfNeeded: bits))
        bits >>= 8
      }
    }

    mutating func bytes(_ value: [UInt8]) {
      integer(value.count)
      output += value
    }

    mutating func text(_ value: String) {
      integer(value.utf8.count)
      output += value.utf8
    }

    mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }

    mutating func optional<Value>(_ value: Value?, _ body: (inout Writer, Value) -> Void) {
      guard let value else { return byte(0) }
      byte(1)
      body(&self, value)
    }

    mutating func problems(_ problems: [AssetProblem]) {
      integer(problems.count)
      for problem in problems {
        text(problem.code.rawValue)
        text(problem.message)
      }
    }

    mutating func date(_ date: CaptureDate?) {
      optional(date) { writer, date in
        for field in [date.year, date.month, date.day, date.hour, date.minute, date.second] {
          writer.integer(field)
        }
        writer.optional(date.subsecond) { $0.text($1) }
        switch date.zone {
        case .utc: writer.byte(0)
        case .offset(let seconds):
          writer.byte(1)
          writer.integer(seconds)
        case .unknown: writer.byte(2)
        }
        writer.text(date.source.rawValue)
      }
    }

    mutating func metadata(_ metadata: MediaMetadata) {
      optional(metadata.dateTime) { $0.text($1) }
      for date in [
        metadata.dateTimeOriginal, metadata.dateTimeDigitized, metadata.modificationDateTime,
        metadata.xmpDate, metadata.sidecarDate, metadata.quickTimeCreationDate,
        metadata.movieHeaderCreationDate,
      ] {
        self.date(date)
      }
      optional(metadata.location) { writer, location in
        writer.double(location.latitude)
        writer.double(location.longitude)
        writer.optional(location.altitude) { $0.double($1) }
      }
      for value in [metadata.pixelWidth, metadata.pixelHeight, metadata.orientation] {
        optional(value) { $0.integer($1) }
      }
      bool(metadata.hasThumbnail)
      optional(metadata.duration) { $0.double($1) }
      for value in [metadata.make, metadata.model, metadata.lensModel, metadata.contentIdentifier] {
        optional(value) { $0.text($1) }
      }
      optional(metadata.embeddedVideoRange) {
        $0.integer($1.lowerBound)
        $0.integer($1.upperBound)
      }
      let log = metadata.problemLog
      problems(log.kept)
      integer(log.omitted)
      text(log.firstOmittedCode.rawValue)
      problems(log.trippedBudgets)
    }
  }

  // MARK: - Reading

  /// Reads a stored result in place, through a pointer valid for the reader's life (no
  /// array bounds or reference counts per byte).
  struct Reader {
    let input: UnsafeBufferPointer<UInt8>
    var offset = 0
    let end: Int

    init(bytes: UnsafeBufferPointer<UInt8>) {
      input = bytes
      end = bytes.count
    }

    var isAtEnd: Bool { offset == end }

    mutating func byte() -> UInt8? {
      guard offset < end else { return nil }
      defer { offset += 1 }
      return input[offset]
    }

    mutating func integer() -> Int? {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard shift < 64, let next = byte() else { return nil }
        value |= UInt64(next & 0x7F) << shift
        if next & 0x80 == 0 { break }
        shift += 7
      }
      let signed = Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
      return Int(exactly: signed)
    }

    mutating func double() -> Double? {
      guard end - offset >= 8 else { return nil }
      var bits: UInt64 = 0
      for index in (0..<8).reversed() { bits = bits << 8 | UInt64(input[offset + index]) }
      offset += 8
      return Double(bitPattern: bits)
    }

    /// A path: `path` itself (sharing its storage) when the bytes are its bytes, as the
    /// first resource's are, else a new one.
    mutating func path(sameAs path: LibraryPath) -> LibraryPath? {
      guard let count = integer(), count >= 0, end - offset >= count else { return nil }
      let bytes = UnsafeBufferPointer(rebasing: input[offset..<offset + count])
      offset += count
      let isSame = path.bytes.withUnsafeBufferPointer { known in
        guard known.count == count else { return false }
        // Both empty when either has no address.
        guard let left = known.baseAddress, let right = bytes.baseAddress else { return true }
        return memcmp(left, right, count) == 0
      }
      return isSame ? path : LibraryPath(bytes: Array(bytes))
    }

    /// Text, refused unless it is valid UTF-8 (decoded, then compared with the bytes: a
    /// repaired decoding differs).
    mutating func text() -> String? {
      guard let count = integer(), count >= 0, end - offset >= count else { return nil }
      let range = offset..<offset + count
      offset += count
      return String(validUTF8: UnsafeBufferPointer(rebasing: input[range]))
    }

    /// The case of `names` whose raw value is the next text, compared as bytes (no `String`
    /// is made for it); `nil` when it is none of them.
    mutating func named<Value>(_ names: NameTable<Value>) -> Value? {
      guard let count = integer(), count >= 0, end - offset >= count else { return nil }
      let range = offset..<offset + count
      offset += count
      return names.value(named: UnsafeBufferPointer(rebasing: input[range]))
    }

    mutating func bool() -> Bool? {
      switch byte() {
      case 0: false
      case 1: true
      default: nil
      }
    }

    /// An optional value: `.some(nil)` when absent, `nil` when malformed.
    mutating func optional<Value>(_ body: (inout Reader) -> Value?) -> Value?? {
      switch byte() {
      case 0: return .some(nil)
      case 1: return body(&self).map { .some($0) }
      default: return nil
      }
    }

    mutating func problems() -> [AssetProblem]? {
      guard let count = integer(), (0...4096).contains(count) else { return nil }
      var problems: [AssetProblem] = []
      for _ in 0..<count {
        guard let code = named(Names.codes), let message = text()
        else { return nil }
        problems.append(AssetProblem(code, message))
      }
      return problems
    }

    /// Optional text: `.some(nil)` when absent, `nil` when malformed.
    mutating func optionalText() -> String?? {
      switch byte() {
      case 0: return .some(nil)
      case 1: return text().map { .some($0) }
      default: return nil
      }
    }

    /// An optional integer, as ``optionalText()``.
    mutating func optionalInteger() -> Int?? {
      switch byte() {
      case 0: return .some(nil)
      case 1: return integer().map { .some($0) }
      default: return nil
      }
    }

    /// An optional double, as ``optionalText()``.
    mutating func optionalDouble() -> Double?? {
      switch byte() {
      case 0: return .some(nil)
      case 1: return double().map { .some($0) }
      default: return nil
      }
    }

    mutating func date() -> CaptureDate?? {
      switch byte() {
      case 0: return .some(nil)
      case 1: break
      default: return nil
      }
      guard let year = integer(), let month = integer(), let day = integer(),
        let hour = integer(), let minute = integer(), let second = integer(),
        let subsecond = optionalText()
      else { return nil }
      let zone: CaptureDate.Zone
      switch byte() {
      case 0: zone = .utc
      case 1:
        guard let seconds = integer() else { return nil }
        zone = .offset(seconds: seconds)
      case 2: zone = .unknown
      default: return nil
      }
      guard let source = named(Names.sources),
        let date = CaptureDate(
          year: year, month: month, day: day, hour: hour, minute: minute, second: second,
          subsecond: subsecond, zone: zone, source: source)
      else { return nil }
      return .some(date)
    }

    mutating func metadata() -> MediaMetadata? {
      var metadata = MediaMetadata()
      guard let dateTime = optionalText(), let original = date(), let digitized = date(),
        let modification = date(), let xmp = date(), let sidecar = date(),
        let quickTime = date(), let movieHeader = date()
      else { return nil }
      metadata.dateTime = dateTime
      metadata.dateTimeOriginal = original
      metadata.dateTimeDigitized = digitized
      metadata.modificationDateTime = modification
      metadata.xmpDate = xmp
      metadata.sidecarDate = sidecar
      metadata.quickTimeCreationDate = quickTime
      metadata.movieHeaderCreationDate = movieHeader
      switch byte() {
      case 0: break
      case 1:
        guard let latitude = double(), let longitude = double(),
          let altitude = optionalDouble(),
          let location = Location(latitude: latitude, longitude: longitude, altitude: altitude)
        else { return nil }
        metadata.location = location
      default: return nil
      }
      guard let width = optionalInteger(), let height = optionalInteger(),
        let orientation = optionalInteger(), let hasThumbnail = bool(),
        let duration = optionalDouble(), let make = optionalText(), let model = optionalText(),
        let lens = optionalText(), let contentIdentifier = optionalText()
      else { return nil }
      metadata.pixelWidth = width
      metadata.pixelHeight = height
      metadata.orientation = orientation
      metadata.hasThumbnail = hasThumbnail
      metadata.duration = duration
      metadata.make = make
      metadata.model = model
      metadata.lensModel = lens
      metadata.contentIdentifier = contentIdentifier
      switch byte() {
      case 0: break
      case 1:
        guard let lower = integer(), let upper = integer(), lower <= upper else { return nil }
        metadata.embeddedVideoRange = lower..<upper
      default: return nil
      }
      guard let kept = problems(), let omitted = integer(), omitted >= 0,
        let omittedCode = named(Names.codes),
        let budgets = problems()
      else { return nil }
      metadata.problemLog = ProblemLog(
        kept: kept, omitted: omitted, firstOmittedCode: omittedCode, trippedBudgets: budgets)
      return metadata
    }
  }
}

extension MediaMetadata {
  /// Whether every value is one a reader of a file of `fileSize` bytes can produce
  /// (``StoredResult/Bounds``): pixel sizes within 32 bits, an orientation of 1 to 8, a
  /// finite duration of at most 2^64 seconds, an embedded video inside the file.
  fileprivate func isWithinBounds(fileSize: Int) -> Bool {
    for side in [pixelWidth, pixelHeight] {
      if let side, !StoredResult.Bounds.side.contains(side) { return false }
    }
    if let orientation, !(1...8).contains(orientation) { return false }
    if let duration, !StoredResult.Bounds.duration.contains(duration) { return false }
    if let range = embeddedVideoRange, range.lowerBound < 0 || range.upperBound > fileSize {
      return false
    }
    if let altitude = location?.altitude, !altitude.isFinite { return false }
    return true
  }
}
