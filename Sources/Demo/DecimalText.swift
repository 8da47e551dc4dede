import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// Numbers rounded to a fixed number of decimals, as JSON and CSV write coordinates
/// (``fixed(_:decimalPlaces:)``) and the table and the page (``fiveDecimals(_:)``).
enum DecimalText {
  /// `value` rounded to `places` decimals (``Location/scaledInteger(_:decimalPlaces:)``,
  /// halves away from zero) in plain notation: digits, a point, at least one decimal,
  /// trailing zeros dropped (`-22.9068`, `35.0`, `0.0000001`); `-0` is `0.0`. A value too
  /// large to carry that many decimals is written as a whole number in plain notation too
  /// (``plainWhole(_:)``: `10000000000000000.0`, never `1e+16`); one that is not finite
  /// as Swift's text.
  ///
  /// - Parameters:
  ///   - value: The number.
  ///   - places: How many decimals to keep at most, 0…15.
  static func fixed(_ value: Double, decimalPlaces places: Int) -> String {
    withFixedUTF8(value, decimalPlaces: places) { String(decoding: $0, as: UTF8.self) }
  }

  /// `value` with five decimals, as C's `%.5f` writes it: `35.68950`, `-0.00000`.
  static func fiveDecimals(_ value: Double) -> String {
    exactFiveDecimals(value) ?? printed(value, decimalPlaces: 5)
  }

  /// `value` as C's `%.*f` writes it with `places` decimals (`%.4f`: `0.0125`, `%.0f`:
  /// `512`), which is what `String(format:)` gives too.
  static func printed(_ value: Double, decimalPlaces places: Int) -> String {
    // Enough for any double's digits (at most 309 before the point), the sign and up to
    // 100 decimals.
    let capacity = 512
    let places = Int32(min(max(places, 0), 100))
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
      let count = withVaList([places, value]) {
        vsnprintf(buffer.baseAddress, capacity, "%.*f", $0)
      }
      guard count > 0, count < capacity else { return value.description }
      return String(
        decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(count)),
        as: UTF8.self)
    }
  }

  /// ``fiveDecimals(_:)`` of a finite `value` below 2^33 in magnitude (every coordinate),
  /// made from its exact binary value as `%.5f` makes it: the value times 10^5, rounded
  /// to the nearest integer, a half to the even one; `-` for any negative value (`-0.00000`
  /// too). `nil` for any other value. No `vsnprintf`, which parses its format each time.
  static func exactFiveDecimals(_ value: Double) -> String? {
    let magnitude = value.magnitude
    guard value.isFinite, magnitude < 0x1p33 else { return nil }
    // magnitude = significand × 2^exponent, the significand an integer below 2^53.
    let significand =
      magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
    let exponent = magnitude.isNormal ? Int(magnitude.exponent) - 52 : -1074
    // Below 2^33, so the exponent is at most -20: the product (below 2^70) is shifted
    // right, and the bits shifted out decide the rounding.
    let shift = -exponent
    guard shift > 0 else { return nil }
    let product = UInt128(significand) * 100_000
    var scaled: UInt128 = 0
    if shift < 71 {
      scaled = product >> shift
      let rest = product & ((1 << shift) - 1)
      let half = UInt128(1) << (shift - 1)
      if rest > half || (rest == half && scaled & 1 == 1) { scaled += 1 }
    }
    let whole = UInt64(scaled / 100_000)
    let fraction = Int(scaled % 100_000)
    var text = value.sign == .minus ? "-" : ""
    text += String(whole)
    text += "."
    let digits = String(fraction)
    text += String(repeating: "0", count: 5 - digits.count) + digits
    return text
  }

  /// Calls `body` with ``fixed(_:decimalPlaces:)`` of `value` as UTF-8, made in a
  /// scratch buffer on the stack rather than in a `String`.
  static func withFixedUTF8<Result>(
    _ value: Double, decimalPlaces places: Int,
    _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    guard let scaled = Location.scaledInteger(value, decimalPlaces: places) else {
      var text = plainWhole(value)
      return text.withUTF8(body)
    }
    // `scaled` is below 2^53 in magnitude, so 16 digits at most, and `places` is at most
    // 15: with the sign, the point and a zero before it the text fits in `capacity`.
    let capacity = 40
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { text in
      // Filled from the end: decimals, point, integer digits, sign.
      var start = capacity
      func prepend(_ byte: UInt8) {
        start -= 1
        text[start] = byte
      }
      var magnitude = scaled.magnitude
      var keepsZeros = false
      for position in stride(from: places - 1, through: 0, by: -1) {
        let digit = UInt8(magnitude % 10)
        magnitude /= 10
        // Trailing zeros are dropped, but the first decimal is always kept.
        if digit != 0 || keepsZeros || position == 0 {
          keepsZeros = true
          prepend(UInt8(ascii: "0") + digit)
        }
      }
      if places == 0 { prepend(UInt8(ascii: "0")) }
      prepend(UInt8(ascii: "."))
      repeat {
        prepend(UInt8(ascii: "0") + UInt8(magnitude % 10))
        magnitude /= 10
      } while magnitude > 0
      if scaled < 0 { prepend(UInt8(ascii: "-")) }
      return body(UnsafeBufferPointer(rebasing: text[start...]))
    }
  }

  /// A finite `value` too large for fixed decimals as a plain whole number with `.0`: its
  /// nearest integer below 2^63 (at that size a double has no decimals worth printing),
  /// else Swift's shortest digits with the exponent written out as zeros. Not finite:
  /// Swift's text (`nan`, `inf`).
  static func plainWhole(_ value: Double) -> String {
    guard value.isFinite else { return value.description }
    if value.magnitude < 0x1p63 { return String(Int64(value.rounded())) + ".0" }
    // `1.7976931348623157e+308`: the digits, then as many zeros as the exponent asks.
    let text = value.description
    guard let mark = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
      let exponent = Int(text[text.index(after: mark)...].filter { $0 != "+" })
    else { return text }
    let mantissa = text[..<mark]
    let negative = mantissa.hasPrefix("-")
    let digits = mantissa.filter(\.isASCIIDigit)
    let whole = exponent + 1
    guard whole >= digits.count else { return text }
    return (negative ? "-" : "") + digits + String(repeating: "0", count: whole - digits.count)
      + ".0"
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
