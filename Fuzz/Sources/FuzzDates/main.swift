// Fuzzes the EXIF text parsers (dates, offsets, subseconds) and CaptureDate's validation,
// and checks what they promise: a parsed date has the shape it was checked for, and a
// CaptureDate made from it prints as ISO 8601 without trapping.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDates(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  // The input is `date \n subsecond \n offset`, so the three fields vary independently.
  let fields = bytes.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
    .map(Array.init)
  let dateField = fields.first ?? []
  let subsecondField = fields.count > 1 ? fields[1] : []
  let offsetField = fields.count > 2 ? fields[2] : []
  let offset = EXIFDateText.parseOffset(offsetField)
  if case .some(.some(let seconds)) = offset, abs(seconds) > 18 * 3600 + 59 * 60 { abort() }
  let subsecond = EXIFDateText.parseSubsecond(subsecondField)
  if case .some(.some(let digits)) = subsecond, digits.isEmpty { abort() }
  switch EXIFDateText.parseDate(dateField) {
  case .blank, .invalid:
    break
  case .date(
    let year, let month, let day, let hour, let minute, let second, let ownSubsecond, let text,
    let zone):
    guard (0...9999).contains(year), (0...99).contains(month), (0...99).contains(day),
      (0...99).contains(hour), (0...99).contains(minute), (0...99).contains(second),
      text.utf8.count >= 19
    else { abort() }
    // A fraction written inside the field is digits only, never empty.
    if let ownSubsecond,
      ownSubsecond.isEmpty || !ownSubsecond.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
    {
      abort()
    }
    var ownZone = zone ?? .unknown
    if case .some(.some(let seconds)) = offset, zone == nil { ownZone = .offset(seconds: seconds) }
    let subsecondText: String?? = subsecond
    let date = CaptureDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      subsecond: subsecondText ?? nil, zone: ownZone, source: .exifDateTimeOriginal)
    if let date, date.iso8601.utf8.count < 19 { abort() }
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzDates(data, size) })
  }
}
