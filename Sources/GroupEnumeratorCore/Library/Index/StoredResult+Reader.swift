import FoundationEssentials
import Glibc

extension StoredResult {
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

    /// A resource as ``Writer/resource(_:)`` wrote it, its path sharing `path`'s storage
    /// when it is the same; its byte range, if any, within `rangeBound` (by default, the
    /// resource's own size).
    mutating func resource(sameAs path: LibraryPath, rangeBound: Int64?) -> AssetResource? {
      guard let resourcePath = self.path(sameAs: path), let role = named(Names.roles),
        let format = optional({ $0.named(Names.formats) }),
        let size = integer(), size >= 0,
        let range = optional({ reader -> Range<Int64>? in
          guard let lower = reader.integer(), let upper = reader.integer(), 0 <= lower,
            lower <= upper, Int64(upper) <= rangeBound ?? Int64(size)
          else { return nil }
          return Int64(lower)..<Int64(upper)
        })
      else { return nil }
      return AssetResource(
        path: resourcePath, role: role, format: format, fileSize: Int64(size), byteRange: range)
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
