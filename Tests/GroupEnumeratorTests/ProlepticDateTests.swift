import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Capture dates use the proleptic Gregorian calendar for every year, both ways: an
/// instant becomes a date (``CaptureDate/init(utc:source:)``) and a date an instant
/// (``CaptureDate/date``). The seconds below are Python's `datetime`, whose calendar is
/// proleptic Gregorian (`(datetime(1500, 6, 1) - datetime(1970, 1, 1)).total_seconds()`).
@Suite struct ProlepticDateTests {
  @Test(arguments: [
    (-14_818_723_200.0, "1500-06-01T00:00:00Z"),
    (-12_219_681_600.0, "1582-10-10T12:00:00Z"),
    (-11_670_994_677.0, "1600-02-29T01:02:03Z"),
    (-62_135_596_799.0, "0001-01-01T00:00:01Z"),
    (253_402_300_799.0, "9999-12-31T23:59:59Z"),
    (-1.5, "1969-12-31T23:59:58Z"),
    (0, "1970-01-01T00:00:00Z"),
    (951_782_400.0, "2000-02-29T00:00:00Z"),
    (1_700_000_000.0, "2023-11-14T22:13:20Z"),
  ])
  func anInstantIsItsProlepticGregorianDate(seconds: Double, text: String) throws {
    let date = try #require(
      CaptureDate(utc: Date(timeIntervalSince1970: seconds), source: .takeoutPhotoTakenTime))
    #expect(date.iso8601 == text)
    // And back: the same instant (to the second: no subseconds here).
    #expect(date.date?.timeIntervalSince1970 == seconds.rounded(.down))
  }

  @Test func outsideYearsOneTo9999IsNoDate() {
    for seconds in [-62_135_596_800.0, 253_402_300_800.0, .infinity, .nan, -1e300] {
      #expect(
        CaptureDate(utc: Date(timeIntervalSince1970: seconds), source: .takeoutPhotoTakenTime)
          == nil, "\(seconds)")
    }
  }

  @Test func everyDayRoundTrips() {
    // Every 97th day over the whole range of years, through both conversions.
    var days = CaptureDate.daysSince1970(year: 1, month: 1, day: 1)
    let last = CaptureDate.daysSince1970(year: 9999, month: 12, day: 31)
    var checked = 0
    while days <= last {
      let (year, month, day) = CaptureDate.civil(daysSince1970: days)
      #expect(
        (1...12).contains(month) && day >= 1 && day <= CaptureDate.daysIn(month: month, year: year))
      #expect(CaptureDate.daysSince1970(year: year, month: month, day: day) == days)
      days += 97
      checked += 1
    }
    #expect(checked > 37_000)
  }

  @Test func aLocalDateBefore1582KeepsItsDayAsAnInstant() throws {
    let date = try #require(
      CaptureDate(
        year: 1500, month: 6, day: 1, hour: 12, minute: 0, second: 0, subsecond: "5",
        zone: .offset(seconds: 3600), source: .exifDateTimeOriginal))
    #expect(date.date?.timeIntervalSince1970 == -14_818_723_200 + 11 * 3600 + 0.5)
    #expect(date.wallClockAsUTC?.timeIntervalSince1970 == -14_818_723_200 + 12 * 3600 + 0.5)
  }
}
