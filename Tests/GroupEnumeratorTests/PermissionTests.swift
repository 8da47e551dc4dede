import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// Whether this process honours file modes, decided once by trying to open a folder
/// whose mode is 000.
enum PermissionProbe {
  /// `true` when the process can read a mode-000 folder: root with `CAP_DAC_OVERRIDE` or
  /// `CAP_DAC_READ_SEARCH`. Permission tests would then pass for the wrong reason.
  static let canBypassPermissions: Bool = {
    guard let folder = try? TemporaryFolder() else { return true }
    guard (try? folder.makeFolder("locked")) != nil, (try? folder.setMode("locked", 0)) != nil
    else { return true }
    let descriptor = open(folder.absolute("locked"), O_RDONLY | O_DIRECTORY)
    if descriptor >= 0 { close(descriptor) }
    return descriptor >= 0
  }()

  /// Whether the environment demands that the permission tests really run
  /// (`GROUPENUMERATOR_REQUIRE_PERMISSION_TESTS=1`, as CI sets under `setpriv`).
  static let isRequired =
    ProcessInfo.processInfo.environment["GROUPENUMERATOR_REQUIRE_PERMISSION_TESTS"] == "1"

  /// Run the suite when modes are enforced, or when it is required (it then fails).
  static let shouldRun = !canBypassPermissions || isRequired

  /// How to run the suite so that it means something, as root.
  static let howToRun =
    "Run under 'setpriv --bounding-set=-dac_override,-dac_read_search swift test"
    + " --filter Permission'."

  /// Records a failure when permissions cannot be enforced here.
  ///
  /// - Returns: `true` when the test may go on.
  static func requireEnforced() -> Bool {
    guard canBypassPermissions else { return true }
    Issue.record(
      Comment(
        rawValue: "GROUPENUMERATOR_REQUIRE_PERMISSION_TESTS=1, but this process bypasses file"
          + " modes (CAP_DAC_OVERRIDE). " + howToRun))
    return false
  }
}

@Suite(
  "Permission tests",
  .enabled(
    if: PermissionProbe.shouldRun,
    Comment(
      rawValue: "This process bypasses file modes (CAP_DAC_OVERRIDE). " + PermissionProbe.howToRun))
)
struct PermissionTests {
  @Test func unreadableRootFailsWithPermissionDenied() throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    try folder.makeFolder("lib/Album")
    try folder.write("lib/Album/a.jpg", SampleBytes.jpeg)
    try folder.setMode("lib", 0)
    let root = folder.absolute("lib")
    #expect(throws: LibraryError.permissionDenied(path: root)) {
      try LibraryScanner(root: root, options: LibraryOptions()).scan()
    }
    try folder.setMode("lib", 0o755)
  }

  @Test @MainActor func deniedLibraryFailsTheLegacyCallExactlyOnce() async throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    try folder.makeFolder("lib")
    try folder.write("lib/a.jpg", SampleBytes.jpeg)
    try folder.setMode("lib", 0)
    defer { try? folder.setMode("lib", 0o755) }
    let root = folder.absolute("lib")
    let outcome = await LegacyTests().run(URL(fileURLWithPath: root))
    #expect(outcome.successes.isEmpty)
    #expect(outcome.failures == [.permissionDenied(path: root)])
    #expect(outcome.progress.calls.isEmpty)
    let message = try #require(outcome.failures.first).message(in: .simplifiedChinese)
    #expect(message.hasPrefix("无法访问相册"))
  }

  @Test func searchableButUnlistableRootFailsWithPermissionDenied() throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    try folder.makeFolder("lib")
    try folder.setMode("lib", 0o111)
    let root = folder.absolute("lib")
    #expect(throws: LibraryError.permissionDenied(path: root)) {
      try LibraryScanner(root: root, options: LibraryOptions()).scan()
    }
    try folder.setMode("lib", 0o755)
  }

  @Test func unreadableSubfolderIsReportedAndSiblingsAreListed() throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    for album in ["A", "Locked", "Search Only", "Z"] {
      try folder.makeFolder(album)
      try folder.write("\(album)/x.jpg", SampleBytes.jpeg)
    }
    try folder.setMode("Locked", 0)
    try folder.setMode("Search Only", 0o111)
    let result = try LibraryScanner(root: folder.path, options: LibraryOptions()).scan()
    #expect(
      outline(try resolved(result, root: folder.path)) == [
        "album A", "  A/x.jpg photo JPEG", "album Z", "  Z/x.jpg photo JPEG",
        "problem Locked unreadableFolder", "problem Search Only unreadableFolder",
      ])
    let message = try #require(result.folderProblems.first?.problem.message)
    #expect(message.contains("'Locked'"))
    #expect(message.contains("Permission denied"))
    try folder.setMode("Locked", 0o755)
    try folder.setMode("Search Only", 0o755)
  }

  @Test func listableButUnsearchableFolderListsRegularFilesAsUnreadable() throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    try folder.makeFolder("Album")
    try folder.write("Album/x.jpg", SampleBytes.jpeg)
    try folder.write("Album/notes.txt", Array("notes".utf8))
    try folder.setMode("Album", 0o444)
    let result = try LibraryScanner(root: folder.path, options: LibraryOptions()).scan()
    #expect(
      outline(try resolved(result, root: folder.path)) == [
        // `readdir` says notes.txt is a regular file, so it is listed too, as an other
        // file: its name is not a media one, and its content cannot be seen.
        "album Album", "  Album/x.jpg photo - unreadable", "other Album/notes.txt unreadable",
      ])
    try folder.setMode("Album", 0o755)
  }

  @Test func unreadableFileIsListedWithAProblem() throws {
    guard PermissionProbe.requireEnforced() else { return }
    let folder = try TemporaryFolder()
    try folder.write("locked.mov", SampleBytes.quickTime)
    try folder.write("locked.txt", Array("secret".utf8))
    try folder.write("open.jpg", SampleBytes.jpeg)
    try folder.setMode("locked.mov", 0)
    try folder.setMode("locked.txt", 0)
    let result = try LibraryScanner(root: folder.path, options: LibraryOptions()).scan()
    #expect(
      outline(try resolved(result, root: folder.path)) == [
        "savedPhotos", "  locked.mov video - unreadable", "  open.jpg photo JPEG",
        "other locked.txt unreadable",
      ])
    let problem = try #require(
      try resolved(result, root: folder.path).groups.first?.files.first?.problem)
    #expect(problem.message.contains("'locked.mov'"))
    #expect(problem.message.contains("Permission denied"))
  }
}
