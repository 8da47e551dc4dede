import GroupEnumerator

/// Numbers rounded to a fixed number of decimals, as JSON and CSV write coordinates.
enum DecimalText {
  /// `value` rounded to `places` decimals (``Location/scaledInteger(_:decimalPlaces:)``,
  /// halves away from zero) in plain notation: digits, a point, at least one decimal,
  /// trailing zeros dropped (`-22.9068`, `35.0`, `0.0000001`); `-0` is `0.0`. A value too
  /// large to carry that many decimals, or not finite, is written as Swift's shortest text.
  ///
  /// - Parameters:
  ///   - value: The number.
  ///   - places: How many decimals to keep at most, 0…15.
  static func fixed(_ value: Double, decimalPlaces places: Int) -> String {
    guard let scaled = Location.scaledInteger(value, decimalPlaces: places) else {
      return value.description
    }
    var magnitude = scaled.magnitude
    var fraction: [UInt8] = []
    for _ in 0..<places {
      fraction.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    }
    fraction.reverse()
    while fraction.count > 1, fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
    if fraction.isEmpty { fraction = [UInt8(ascii: "0")] }
    let sign = scaled < 0 ? "-" : ""
    return sign + String(magnitude) + "." + String(decoding: fraction, as: UTF8.self)
  }
}
