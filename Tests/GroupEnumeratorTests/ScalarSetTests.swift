import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The scalar sets and the string helpers made of them are Foundation's, scalar for scalar
/// (but for Foundation's mistakes in plane 14).
@Suite struct ScalarSetTests {
  /// Every Unicode scalar.
  static let everyScalar = (0...0x10FFFF).compactMap(Unicode.Scalar.init)

  @Test func eachSetHoldsWhatFoundationsHolds() {
    var differences: [String] = []
    for scalar in Self.everyScalar {
      let hex = String(scalar.value, radix: 16)
      if scalar.isSpaceOrTab != CharacterSet.whitespaces.contains(scalar) {
        differences.append("whitespaces U+\(hex)")
      }
      if scalar.isSpaceOrNewline != CharacterSet.whitespacesAndNewlines.contains(scalar) {
        differences.append("whitespacesAndNewlines U+\(hex)")
      }
      // Foundation's set also holds plane 14's variation selectors and unassigned
      // scalars (Mn and Cn, not Cc or Cf).
      if scalar.isControlOrFormat != CharacterSet.controlCharacters.contains(scalar),
        !(0xE0000...0xEFFFF).contains(scalar.value)
      {
        differences.append("controlCharacters U+\(hex)")
      }
    }
    #expect(differences.isEmpty, "\(differences.prefix(20))")
  }

  static let texts = [
    "", " ", "\t\n", "  a b  ", "\u{00A0}x\u{2028}", "\u{200B}id\u{0}\u{7F}", " \u{301}a ",
    "日本 ", "\r\n2019-03-15T10:00:00\r\n", "\u{85}\u{3000}v\u{3000}", "a\u{FEFF}",
  ]

  @Test(arguments: texts)
  func trimmingIsFoundations(text: String) {
    #expect(text.trimming(\.isSpaceOrTab) == text.trimmingCharacters(in: .whitespaces))
    #expect(
      text.trimming(\.isSpaceOrNewline) == text.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(
      text.trimming { $0.isSpaceOrNewline || $0.isControlOrFormat }
        == text.trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters)))
  }

  @Test(arguments: ["jpg", "tar.gz", "jp g", "é", "a/b?c&d=e", "\u{1B}[31m", "日本", "x\u{301}"])
  func percentEncodingIsFoundations(text: String) {
    #expect(
      text.percentEncodingAllButASCIIAlphanumerics
        == text.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
  }
}
