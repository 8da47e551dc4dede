import Foundation
import Glibc
import GroupEnumerator
import Synchronization
import Testing

@testable import Demo

/// Output hygiene (docs/Robustness.md): control characters, invisible format characters
/// and spreadsheet formulas from names and files never reach a terminal or a spreadsheet
/// as they are.
@Suite struct OutputHygieneTests {
  @Test(arguments: [
    ("clear-\u{1B}[2J", "clear-%1B[2J"),
    ("osc52-\u{1B}]52;c;eA==\u{07}", "osc52-%1B]52;c;eA==%07"),
    ("c1-\u{9B}31m", "c1-%C2%9B31m"),
    ("del-\u{7F}", "del-%7F"),
    ("line\nbreak\r", "line%0Abreak%0D"),
    ("tab\there", "tab%09here"),
    ("nul\u{0}", "nul%00"),
    ("plain 京都 café 📷", "plain 京都 café 📷"),
  ])
  func messagesEscapeEveryControlCharacterAsPercentHex(input: String, expected: String) {
    #expect(OutputHygiene.message(input) == expected)
  }

  @Test func messagesAndTableCellsShowBidiAndZeroWidthCharacters() {
    let name = "bidi-\u{202E}GPJ.exe zero\u{200B}width \u{2066}x\u{2069} \u{FEFF}"
    let shown = "bidi-<U+202E>GPJ.exe zero<U+200B>width <U+2066>x<U+2069> <U+FEFF>"
    #expect(OutputHygiene.message(name) == shown)
    #expect(OutputHygiene.tableCell(name) == shown)
  }

  @Test func aJoinerInsideAnEmojiSequenceStaysAPicture() {
    let technologist = "👩\u{200D}💻"
    #expect(OutputHygiene.tableCell(technologist) == technologist)
    #expect(OutputHygiene.tableCell("a\u{200D}b") == "a<U+200D>b")
  }

  @Test(
    arguments: [
      0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x180E, 0x2028, 0x2029, 0x206A, 0x206F, 0x2800,
      0x3164, 0xFE00, 0xFE0F, 0xFFA0, 0x1D173, 0xE0001, 0xE0020, 0xE007F, 0xE0100,
    ] as [UInt32])
  func everyCharacterThatRendersAsNothingIsShown(value: UInt32) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let name = "IMG" + String(Character(scalar)) + "1.jpg"
    let code = String(value, radix: 16, uppercase: true)
    let shown = "IMG<U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code + ">1.jpg"
    #expect(OutputHygiene.tableCell(name) == shown)
    #expect(OutputHygiene.message(name) == shown)
  }

  @Test func selectorsJoinersAndTagsOfAnEmojiStayPartOfIt() {
    let heart = "\u{2764}\u{FE0F}"
    let keycap = "1\u{FE0F}\u{20E3}"
    let england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"
    for emoji in [heart, keycap, england] {
      #expect(OutputHygiene.tableCell("a " + emoji + " b") == "a " + emoji + " b")
    }
    // The same outside an emoji: shown.
    #expect(OutputHygiene.tableCell("a\u{FE0F}") == "a<U+FE0F>")
    #expect(OutputHygiene.tableCell("1\u{FE0F}") == "1<U+FE0F>")
    #expect(OutputHygiene.tableCell("x\u{E0067}") == "x<U+E0067>")
  }

  @Test func tableCellsShowControlCharactersAsQuestionMarks() {
    #expect(OutputHygiene.tableCell("a\u{1B}[2J\u{9B}\u{7F}\nb") == "a?[2J???b")
  }

  @Test func severalLinesKeepTheirBreaksButNotTheirEscapes() {
    #expect(OutputHygiene.lines("Error: '\u{1B}x'\nUsage: y\n") == "Error: '%1Bx'\nUsage: y\n")
  }

  @Test(arguments: [
    ("=1+1", "'=1+1"),
    ("+SUM(1,2)", "'+SUM(1,2)"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"),
    ("\rx", "'%0Dx"),
    ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
    ("a=1", "a=1"),
    ("IMG_0001.JPG", "IMG_0001.JPG"),
    ("'quoted", "'quoted"),
    ("", ""),
  ])
  func csvTextThatStartsLikeAFormulaGetsAQuote(input: String, expected: String) {
    #expect(OutputHygiene.csvText(input) == expected)
  }

  @Test func csvTextKeepsTabsButEscapesOtherControls() {
    #expect(OutputHygiene.csvText("a\tb\u{1B}c\u{9B}d\ne") == "a\tb%1Bc%C2%9Bd%0Ae")
  }

  @Test func csvNeutralisesNamesButNotTheNumbersItMakes() throws {
    let asset = try photo(named: "=1+1.JPG")
    let fields = CSVFormatter.fields(for: asset)
    let column = { (name: String) in fields[CSVFormatter.assetColumns.firstIndex(of: name) ?? 0] }
    #expect(column("name") == "'=1+1.JPG")
    // A negative latitude or longitude is a number the Demo wrote, not a formula.
    let location = try #require(asset.location)
    #expect(column("latitude") == location.latitude.description)
    #expect(column("longitude") == location.longitude.description)
    #expect(location.latitude < 0 || location.longitude < 0)
  }

  @Test func csvRecordsOfEscapeCodeNamesHoldNoControlCharacters() throws {
    let asset = try photo(named: "clear-\u{1B}[2J\u{9B}31m\u{7}\nx.JPG")
    let record = CSVFormatter.record(CSVFormatter.fields(for: asset))
    let body = record.dropLast(2)  // the CRLF record end
    #expect(!body.unicodeScalars.contains { OutputHygiene.isControl($0) && $0 != "\t" })
    #expect(record.hasSuffix("\r\n"))
  }

  /// ``SampleAssets/photoWithGPS()``'s metadata under another name, in the Camera Roll.
  private func photo(named name: String) throws -> Asset {
    let path = LibraryPath(name)
    return Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1)],
      fileModificationDate: Date(timeIntervalSince1970: 1_700_000_000),
      metadata: try SampleAssets.photoWithGPS().metadata)
  }

  @Test(
    arguments: [
      (nil, 80), ("", 80), ("abc", 80), ("0", 80), ("-5", 80), ("1", 1), ("132", 132),
      ("1000", 1000), ("1001", 1000), ("10000000000", 1000), ("1000000000000000000000000", 1000),
    ] as [(String?, Int)])
  func columnsFromTheEnvironmentAreClampedToAThousand(value: String?, columns: Int) {
    #expect(Terminal.columns(environment: value) == columns)
  }

  @Test func terminalWidthsAreClampedToOneToAThousand() {
    #expect(Terminal.clampedColumns(0) == 1)
    #expect(Terminal.clampedColumns(65535) == 1000)
    #expect(Terminal.clampedColumns(80) == 80)
  }
}

/// Exit statuses and write errors: 141 only for a closed pipe, 74 with a message for
/// any other write error.
@Suite struct ExitStatusTests {
  @Test func aClosedPipeIs141AndQuiet() {
    let outcome = DemoCommand.exitStatus(0, outputFailure: EPIPE)
    #expect(outcome.status == 141)
    #expect(outcome.message == nil)
  }

  @Test func aClosedPipeAfterAFailureKeepsTheFailure() {
    #expect(DemoCommand.exitStatus(1, outputFailure: EPIPE).status == 1)
  }

  @Test(arguments: [ENOSPC, EIO, EBADF, EINVAL, EDQUOT])
  func anyOtherWriteErrorIs74WithTheReason(code: Int32) {
    let outcome = DemoCommand.exitStatus(0, outputFailure: code)
    #expect(outcome.status == 74)
    #expect(
      outcome.message == "Error: cannot write the output: \(String(cString: strerror(code)))\n")
  }

  @Test func noFailureKeepsTheStatus() {
    #expect(DemoCommand.exitStatus(64, outputFailure: nil).status == 64)
    #expect(DemoCommand.exitStatus(0, outputFailure: nil).message == nil)
  }

  @Test func aStreamOnAFullDeviceRecordsENOSPC() throws {
    let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var stream = FileDescriptorStream(descriptor: descriptor, capacity: 0)
    stream.write("x")
    #expect(stream.failure == ENOSPC)
    #expect(stream.isBroken)
  }

  /// A run that does not fit beside what is buffered flushes the buffer and is kept in it
  /// when it fits there (one listed asset), so that the listing writes full buffers; a
  /// run larger than the buffer goes out at once, after what was buffered.
  @Test func aRunThatFitsTheEmptiedBufferIsKeptThere() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let path = folder.root.appendingPathComponent("out").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    func written() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    var stream = FileDescriptorStream(descriptor: descriptor, capacity: 8)
    func write(_ text: String) {
      Array(text.utf8).withUnsafeBufferPointer { stream.write(contentsOf: $0) }
    }
    write("abcde")
    #expect(try written() == "")
    write("fghij")
    #expect(try written() == "abcde")
    write("0123456789")
    #expect(try written() == "abcdefghij0123456789")
    write("xy")
    stream.flush()
    #expect(try written() == "abcdefghij0123456789xy")
  }

  /// A run far larger than the buffer is written from where it is, in as many partial
  /// writes as a pipe takes (64 KiB at a time), every byte once and in order.
  @Test func aLargeRunGoesOutWholeThroughPartialWrites() throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let run = (0..<(1 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    let received = PipeReader(ends[0])
    var stream = FileDescriptorStream(descriptor: ends[1], capacity: 8)
    Array("head".utf8).withUnsafeBufferPointer { stream.write(contentsOf: $0) }
    run.withUnsafeBufferPointer { stream.write(contentsOf: $0) }
    stream.flush()
    close(ends[1])
    #expect(stream.failure == nil)
    #expect(received.bytes() == Array("head".utf8) + run)
  }

  @Test func aStreamWhoseReaderWentAwayRecordsEPIPE() throws {
    signal(SIGPIPE, SIG_IGN)
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    close(ends[0])
    defer { close(ends[1]) }
    var stream = FileDescriptorStream(descriptor: ends[1], capacity: 0)
    stream.write("x")
    #expect(stream.failure == EPIPE)
  }

  @Test func aClosedGateWritesNothingMore() throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    let gate = OutputGate()
    var stream = FileDescriptorStream(descriptor: ends[1], capacity: 0, gate: gate)
    stream.write("before")
    gate.close()
    stream.write("after")
    stream.flush()
    #expect(stream.failure == nil)
    var buffer = [UInt8](repeating: 0, count: 64)
    _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
    let count = read(ends[0], &buffer, buffer.count)
    #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "before")
  }

  /// A file of `count` patterned bytes in `folder`, open for reading.
  private func source(_ count: Int, in folder: TemporaryFolder) throws -> (Int32, [UInt8]) {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
    let path = folder.root.appendingPathComponent("source").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    return (descriptor, bytes)
  }

  /// A replayed listing is sent from its file by the kernel, after what was buffered,
  /// every byte once and in order, through a pipe's partial writes.
  @Test func aSentRangeGoesOutAfterTheBufferThroughAPipe() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let (file, bytes) = try source((1 << 20) + 123, in: folder)
    defer { close(file) }
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let received = PipeReader(ends[0])
    var stream = FileDescriptorStream(descriptor: ends[1], capacity: 8)
    stream.write("head")
    let sent = stream.send(from: file, offset: 5, length: bytes.count - 9)
    close(ends[1])
    #expect(sent == bytes.count - 9)
    #expect(stream.failure == nil)
    #expect(received.bytes() == Array("head".utf8) + bytes[5..<(bytes.count - 4)])
    // The file's own offset is not moved.
    #expect(lseek(file, 0, SEEK_CUR) == 0)
  }

  @Test func aSentRangeIntoAFileIsTheSameBytes() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let (file, bytes) = try source(300_000, in: folder)
    defer { close(file) }
    let path = folder.root.appendingPathComponent("out").path
    let out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    try #require(out >= 0)
    var stream = FileDescriptorStream(descriptor: out, capacity: 64 * 1024)
    #expect(stream.send(from: file, offset: 0, length: bytes.count) == bytes.count)
    close(out)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
  }

  /// A file that ends before the range does is reported by the count sent, not as a
  /// failure of the output.
  @Test func aShortFileStopsASend() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let (file, bytes) = try source(100_000, in: folder)
    defer { close(file) }
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    try #require(null >= 0)
    defer { close(null) }
    var stream = FileDescriptorStream(descriptor: null, capacity: 0)
    #expect(stream.send(from: file, offset: 90_000, length: 20_000) == bytes.count - 90_000)
    #expect(stream.failure == nil)
  }

  @Test func aClosedGateSendsNothing() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let (file, bytes) = try source(1000, in: folder)
    defer { close(file) }
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    try #require(null >= 0)
    defer { close(null) }
    let gate = OutputGate()
    gate.close()
    var stream = FileDescriptorStream(descriptor: null, capacity: 0, gate: gate)
    #expect(stream.send(from: file, offset: 0, length: bytes.count) == 0)
    #expect(stream.failure == nil)
  }

  /// A stream that cannot send (a String in tests) says so without writing anything, and
  /// the replay then writes the bytes itself.
  @Test func aStreamWithoutSendSaysSo() throws {
    let folder = try TemporaryFolder("OutputHygieneTests")
    let (file, bytes) = try source(1000, in: folder)
    defer { close(file) }
    var text = ""
    #expect(text.send(from: file, offset: 0, length: bytes.count) == nil)
    #expect(text.isEmpty)
  }
}

/// Reads a pipe's read end to its end on a thread of its own (so that a writer larger than
/// the pipe's buffer is never stalled).
private final class PipeReader: Sendable {
  private let received = Mutex<[UInt8]>([])
  private let done = DispatchGroup()

  init(_ readEnd: Int32) {
    DispatchQueue.global().async(group: done) { [self] in
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = read(readEnd, &chunk, chunk.count)
        if count <= 0 { break }
        received.withLock { $0.append(contentsOf: chunk.prefix(count)) }
      }
    }
  }

  /// Everything read, once the write end is closed.
  func bytes() -> [UInt8] {
    done.wait()
    return received.withLock { $0 }
  }
}
