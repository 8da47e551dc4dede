public import FoundationEssentials

/// When a shot was taken, as the file recorded it, with where that answer came from.
///
/// A camera writes a local wall-clock time, sometimes with its UTC offset; a movie
/// header holds a UTC instant; a file's modification time is a UTC instant too. Those are
/// different things, so the time zone is kept as recorded (``Zone``) and never guessed.
public struct CaptureDate: Sendable, Hashable {
  /// Where a capture date was read from.
  public enum Source: String, Sendable, Hashable, CaseIterable, Codable {
    case exifDateTimeOriginal = "exif:DateTimeOriginal"
    case exifDateTimeDigitized = "exif:DateTimeDigitized"
    case exifDateTime = "exif:DateTime"
    /// XMP embedded in the file (`xmp:` + the property): used only when the file's EXIF
    /// has no date; an editor's record of when the shot was taken, or first saved.
    case xmpDateTimeOriginal = "xmp:xmp:DateTimeOriginal"
    case xmpEXIFDateTimeOriginal = "xmp:exif:DateTimeOriginal"
    case xmpPhotoshopDateCreated = "xmp:photoshop:DateCreated"
    case xmpCreateDate = "xmp:xmp:CreateDate"
    /// `photoshop:DateCreated` or `xmp:CreateDate` holding only a day (`2019-09-02`),
    /// used only when no XMP property gives a time: midnight stands in for the time of
    /// day (see ``isDateOnly``).
    case xmpPhotoshopDateCreatedDateOnly = "xmp:photoshop:DateCreated:date-only"
    case xmpCreateDateDateOnly = "xmp:xmp:CreateDate:date-only"
    /// A Canon CRW's captured time (CIFF record 0x180e), the camera's clock.
    case canonRawDateTimeOriginal = "canonraw:DateTimeOriginal"
    /// An AVCHD camera's recording time (the `MDPM` block of the H.264 stream's SEI), the
    /// camera's clock with its UTC offset when recorded.
    case h264DateTimeOriginal = "h264:DateTimeOriginal"
    /// A sidecar `.xmp` file beside the media file (`sidecar:xmp:` + the property): used
    /// only when neither the file's own metadata nor its embedded XMP has a date.
    case sidecarXMPDateTimeOriginal = "sidecar:xmp:xmp:DateTimeOriginal"
    case sidecarXMPEXIFDateTimeOriginal = "sidecar:xmp:exif:DateTimeOriginal"
    case sidecarXMPPhotoshopDateCreated = "sidecar:xmp:photoshop:DateCreated"
    case sidecarXMPCreateDate = "sidecar:xmp:xmp:CreateDate"
    case sidecarXMPPhotoshopDateCreatedDateOnly = "sidecar:xmp:photoshop:DateCreated:date-only"
    case sidecarXMPCreateDateDateOnly = "sidecar:xmp:xmp:CreateDate:date-only"
    /// A Google Takeout `.json` sidecar's `photoTakenTime` (a UTC instant): used only when
    /// the file, its embedded XMP and any `.xmp` sidecar have no date.
    case takeoutPhotoTakenTime = "takeout:photoTakenTime"
    /// An AVI's recording date: the `IDIT` chunk of its header list, the camera's clock.
    case aviIDIT = "riff:IDIT"
    /// An AVI's creation date: the `ICRD` item of its `INFO` list, when there is no `IDIT`.
    case aviICRD = "riff:ICRD"
    /// `ICRD` holding only a day (`2012-09-10`): the time of day is not known and reads
    /// as midnight (see ``isDateOnly``).
    case aviICRDDateOnly = "riff:ICRD:date-only"
    case quickTimeCreationDate = "quicktime:creationdate"
    /// A 3GPP `udta/date` item (`2020-11-20T15:04:02+0100`): local time with its offset,
    /// taken before the movie header when Apple's creationdate is absent.
    case threeGPPDate = "3gpp:date"
    case quickTimeMovieHeader = "quicktime:mvhd"
    case fileModificationTime = "file:mtime"

    /// Whether the date comes from the file system rather than from the file's metadata:
    /// it may be when the file was copied or uploaded, not when the shot was taken.
    public var isFileTime: Bool { self == .fileModificationTime }

    /// Whether the file gave only a day: the time of day reads as midnight (00:00:00) and
    /// means nothing.
    public var isDateOnly: Bool { rawValue.hasSuffix(":date-only") }
  }

  /// The time zone a capture date is in.
  public enum Zone: Sendable, Hashable {
    /// A UTC instant.
    case utc
    /// Local time at this many seconds east of UTC.
    case offset(seconds: Int)
    /// Local time in a zone the file does not say.
    case unknown

    /// The offset as EXIF's `OffsetTime…` tags and ISO 8601 write it (`+09:00`, `-05:30`,
    /// `+00:00`); `nil` for a UTC instant or an unknown zone.
    public var offsetText: String? {
      guard case .offset(let seconds) = self else { return nil }
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { text in
        guard let base = text.baseAddress else { return "" }
        let count = CaptureDate.writeOffset(seconds, to: base)
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
      }
    }
  }

  /// Year, 1…9999.
  public var year: Int { Int(storedYear) }
  /// Month, 1…12.
  public var month: Int { Int(storedMonth) }
  /// Day of the month.
  public var day: Int { Int(storedDay) }
  /// Hour, 0…23.
  public var hour: Int { Int(storedHour) }
  /// Minute, 0…59.
  public var minute: Int { Int(storedMinute) }
  /// Second, 0…60 (a leap second is allowed).
  public var second: Int { Int(storedSecond) }
  /// Fractional seconds as recorded digits (`"123"` for .123), or `nil`.
  public let subsecond: String?
  /// The zone the wall-clock fields are in.
  public var zone: Zone {
    switch zoneKind {
    case 0: .utc
    case 1: .offset(seconds: Int(offsetSeconds))
    default: .unknown
    }
  }
  /// Where the date was read from.
  public let source: Source

  // The components in the fewest bytes their validated ranges need (32 bytes a date
  // instead of 80): a metadata value holds seven dates, and a listing holds every
  // asset's metadata at once.
  private let storedYear: Int16
  private let storedMonth: UInt8
  private let storedDay: UInt8
  private let storedHour: UInt8
  private let storedMinute: UInt8
  private let storedSecond: UInt8
  /// 0 for ``Zone/utc``, 1 for ``Zone/offset(seconds:)`` (``offsetSeconds``), 2 for
  /// ``Zone/unknown``.
  private let zoneKind: UInt8
  /// The offset of ``Zone/offset(seconds:)``, at most 18 hours either way; else 0.
  private let offsetSeconds: Int32

  /// Creates a capture date from validated components.
  ///
  /// - Returns: `nil` when a component is out of range (month 13, February 30, …).
  public init?(
    year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
    subsecond: String? = nil, zone: Zone, source: Source
  ) {
    guard (1...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
      (0...59).contains(minute), (0...60).contains(second),
      (1...CaptureDate.daysIn(month: month, year: year)).contains(day)
    else { return nil }
    // Its bytes, not its Characters: the same test (only 0–9), without grapheme breaking.
    if let subsecond,
      subsecond.isEmpty
        || !subsecond.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    {
      return nil
    }
    if case .offset(let seconds) = zone, abs(seconds) > 18 * 3600 { return nil }
    // Each fits: the checks above bound it.
    self.storedYear = Int16(year)
    self.storedMonth = UInt8(month)
    self.storedDay = UInt8(day)
    self.storedHour = UInt8(hour)
    self.storedMinute = UInt8(minute)
    self.storedSecond = UInt8(second)
    self.subsecond = subsecond
    switch zone {
    case .utc:
      (zoneKind, offsetSeconds) = (0, 0)
    case .offset(let seconds):
      (zoneKind, offsetSeconds) = (1, Int32(seconds))
    case .unknown:
      (zoneKind, offsetSeconds) = (2, 0)
    }
    self.source = source
  }

  /// Creates a UTC capture date from an instant.
  ///
  /// - Parameters:
  ///   - date: The instant.
  ///   - source: Where it was read from.
  /// - Returns: `nil` for an instant outside years 1–9999.
  ///
  /// The calendar is the proleptic Gregorian one of ISO 8601 and EXIF for every year (as
  /// ``date`` reads it back): Foundation's Gregorian calendar switches to the Julian one
  /// before 15 October 1582, which would turn 1500-06-01 into 1500-05-22.
  public init?(utc date: Date, source: Source) {
    let seconds = date.timeIntervalSince1970
    guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 else {
      return nil
    }
    let whole = Int(seconds.rounded(.down))
    let (days, time) = (whole.floorDivided(by: 86_400), whole.floorRemainder(by: 86_400))
    let (year, month, day) = Self.civil(daysSince1970: days)
    self.init(
      year: year, month: month, day: day, hour: time / 3600, minute: time / 60 % 60,
      second: time % 60, zone: .utc, source: source)
  }

  /// The days from 1970-01-01 to `year`-`month`-`day` in the proleptic Gregorian
  /// calendar (negative before 1970), counted in 400-year eras of 146,097 days, with years
  /// starting in March so that the leap day ends them.
  static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let marchYear = month <= 2 ? year - 1 : year
    let era = marchYear.floorDivided(by: 400)
    let yearOfEra = marchYear - era * 400
    let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The proleptic Gregorian date `days` days from 1970-01-01: the inverse of
  /// ``daysSince1970(year:month:day:)``.
  static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
    let shifted = days + 719_468
    let era = shifted.floorDivided(by: 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let marchMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
    let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// The same date, recorded as read from `source`.
  func recorded(as source: Source) -> CaptureDate {
    CaptureDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      subsecond: subsecond, zone: zone, source: source) ?? self
  }

  /// ISO 8601 text: `2019-05-01T12:34:56.120+09:00` with a known offset,
  /// `…Z` for a UTC instant, and no zone for a local time whose zone is unknown.
  public var iso8601: String {
    withISO8601UTF8 { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with ``iso8601``'s UTF-8 bytes, made without building a `String`: what a
  /// writer that appends bytes (such as a JSON writer) needs.
  ///
  /// - Parameter body: Reads the bytes; they are valid only during the call.
  /// - Returns: What `body` returns.
  @_spi(Demo) public func withISO8601UTF8<Result>(
    _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
  )
    rethrows -> Result
  {
    var subsecond = self.subsecond ?? ""
    // `YYYY-MM-DDTHH:MM:SS` (19), `.` and the digits, then at most `+HH:MM` (6).
    let capacity = 26 + subsecond.utf8.count
    return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { text in
      guard let base = text.baseAddress else { return try body(UnsafeBufferPointer(text)) }
      var end = 0
      func put(_ byte: UInt8) {
        base[end] = byte
        end += 1
      }
      func put(_ value: Int, digits: Int) {
        end += CaptureDate.writeDigits(value, width: digits, to: base + end)
      }
      put(year, digits: 4)
      put(UInt8(ascii: "-"))
      put(month, digits: 2)
      put(UInt8(ascii: "-"))
      put(day, digits: 2)
      put(UInt8(ascii: "T"))
      put(hour, digits: 2)
      put(UInt8(ascii: ":"))
      put(minute, digits: 2)
      put(UInt8(ascii: ":"))
      put(second, digits: 2)
      if self.subsecond != nil {
        put(UInt8(ascii: "."))
        subsecond.withUTF8 { digits in
          for digit in digits { put(digit) }
        }
      }
      switch zone {
      case .utc: put(UInt8(ascii: "Z"))
      case .offset(let seconds): end += CaptureDate.writeOffset(seconds, to: base + end)
      case .unknown: break
      }
      return try body(UnsafeBufferPointer(start: base, count: end))
    }
  }

  /// Writes `±HH:MM` for an offset east of UTC (6 bytes).
  ///
  /// - Returns: The number of bytes written.
  static func writeOffset(_ seconds: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
    out[0] = seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
    let magnitude = abs(seconds)
    var end = 1
    end += writeDigits(magnitude / 3600, width: 2, to: out + end)
    out[end] = UInt8(ascii: ":")
    end += 1
    end += writeDigits(magnitude % 3600 / 60, width: 2, to: out + end)
    return end
  }

  /// Writes `value` (not negative) in decimal, left-padded with zeros to `width` digits,
  /// at most 20 bytes.
  ///
  /// - Returns: The number of bytes written.
  private static func writeDigits(_ value: Int, width: Int, to out: UnsafeMutablePointer<UInt8>)
    -> Int
  {
    var length = 1
    var rest = value / 10
    while rest > 0 {
      length += 1
      rest /= 10
    }
    let count = max(length, width)
    var remaining = value
    for index in stride(from: count - 1, through: 0, by: -1) {
      out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
      remaining /= 10
    }
    return count
  }

  /// The date as EXIF writes it: `YYYY:MM:DD HH:MM:SS` (wall-clock, no zone).
  public var exifText: String {
    pad(year, 4) + ":" + pad(month, 2) + ":" + pad(day, 2) + " " + pad(hour, 2) + ":"
      + pad(minute, 2) + ":" + pad(second, 2)
  }

  /// The instant, when the zone is known; `nil` for a local time in an unknown zone.
  public var date: Date? {
    let offset: Int
    switch zone {
    case .utc: offset = 0
    case .offset(let seconds): offset = seconds
    case .unknown: return nil
    }
    return wallClockDate(offsetSeconds: offset)
  }

  /// The wall-clock time read as if it were UTC, for ordering and comparing dates whose
  /// zone is unknown. Never present this as an instant.
  public var wallClockAsUTC: Date? { wallClockDate(offsetSeconds: 0) }

  /// The wall-clock time in the proleptic Gregorian calendar (every year, as
  /// ``init(utc:source:)`` writes it), `offsetSeconds` east of UTC.
  private func wallClockDate(offsetSeconds: Int) -> Date? {
    let days = Self.daysSince1970(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
    let fraction = subsecond.flatMap { Double("0." + $0) } ?? 0
    return Date(timeIntervalSince1970: Double(seconds) + fraction - Double(offsetSeconds))
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width
      ? digits : String(repeating: "0", count: width - digits.count) + digits
  }
}

extension Int {
  /// The quotient rounded toward negative infinity (`/` rounds toward zero).
  fileprivate func floorDivided(by divisor: Int) -> Int {
    let quotient = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }

  /// The remainder of ``floorDivided(by:)``: never negative for a positive divisor.
  fileprivate func floorRemainder(by divisor: Int) -> Int {
    self - floorDivided(by: divisor) * divisor
  }
}
