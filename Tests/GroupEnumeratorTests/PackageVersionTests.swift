import Foundation
import GroupEnumerator
import Testing

@Suite struct PackageVersionTests {
  @Test func theVersionIsTheNewestReleaseInTheChangelog() throws {
    let changelog = Sample.packageRoot.appendingPathComponent("CHANGELOG.md")
    let text = try String(contentsOf: changelog, encoding: .utf8)
    let released = text.split(separator: "\n").first {
      $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]")
    }
    let heading = try #require(released)
    #expect(heading.hasPrefix("## [\(groupEnumeratorVersion)] - "))
  }
}
