import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// `PathText` gives what `NSString`'s path methods give, where those do not trap, and a
/// sensible answer where they do (a one-character name with no slash).
@Suite struct PathTextTests {
  /// Paths `NSString` handles, with every shape of slash.
  static let paths = [
    "", "/", "/a", "/a/", "//a//b//", "ab", "ab/", "a//b", "/tmp/x.jpg", "./a", "../a/..",
    "a/.", "~/x", "a/b/c", "/a/b//c/", "é/ü", "éa", "/photos/2019/IMG_0001.JPG",
    "relative/folder/", "/a b/c d", "/x/\u{1B}[31m/y",
  ]

  @Test(arguments: paths)
  func theLastComponentAndTheParentAreNSStrings(path: String) {
    #expect(PathText.lastComponent(of: path) == (path as NSString).lastPathComponent)
    #expect(PathText.parent(of: path) == (path as NSString).deletingLastPathComponent)
  }

  @Test(arguments: [
    ("", "x"), ("/", "x"), ("ab", ""), ("ab/", "cd"), ("ab//", "cd"), ("/ab", "/cd"),
    ("/ab/", "/cd/"), ("ab", "cd//ef/"), ("", ""), ("/", ""), ("ab//cd", "ef"), ("ab", "/"),
    ("/", "/"), ("/home/me", ".cache/thumbnails"),
  ])
  func appendingIsNSStrings(path: String, component: String) {
    #expect(
      PathText.appending(component, to: path)
        == (path as NSString).appendingPathComponent(component))
  }

  /// `NSString` traps on these (`Demo thumbnail … --output t` and `--format html --output p`
  /// did).
  @Test func aOneCharacterNameHasNoParentFolder() {
    #expect(PathText.parent(of: "p") == "")
    #expect(PathText.parent(of: "p/") == "")
    #expect(PathText.parent(of: "p///") == "")
    #expect(PathText.lastComponent(of: "p") == "p")
    #expect(PathText.parent(of: "/p") == "/")
    #expect(PathText.parent(of: "//") == "/")
  }
}
