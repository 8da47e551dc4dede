import Foundation
import Glibc
import GroupEnumerator
import Testing

@testable import Demo

/// The frames between the Demo and its picture workers, on bytes: what a worker that
/// misbehaves could send is refused with a reason, never trusted or crashed on.
struct PictureFramesTests {
  private let picture = AssetImage(
    data: Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]), isPNG: false, pixelWidth: 64, pixelHeight: 48,
    source: .videoFrame)

  /// The payloads `reader` returns for `bytes` fed `chunk` bytes at a time.
  private func payloads(_ bytes: [UInt8], chunk: Int, limit: Int = 1 << 20) throws -> [[UInt8]] {
    var reader = FrameReader(limit: limit)
    var found: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count {
      reader.append(bytes[offset..<min(offset + chunk, bytes.count)])
      offset += chunk
      while let payload = try reader.next() { found.append(payload) }
    }
    try reader.finish()
    return found
  }

  @Test func everySourceOfAPictureHasItsCode() {
    #expect(PictureFrames.sourceCodes.count == AssetImage.Source.allCases.count)
    #expect(Set(PictureFrames.sourceCodes) == Set(AssetImage.Source.allCases))
  }

  @Test func requestsAndRepliesSurviveTheTripWhateverTheChunks() throws {
    let request = PictureFrames.Request(
      path: LibraryPath(bytes: Array("DCIM/\u{202E}gpj.exe".utf8) + [0xFF]), side: 80, fills: true)
    let failure = PictureFailure(message: "'x.jpg' cannot be decoded: the file is cut short.")
    let stream =
      PictureFrames.frame(PictureFrames.payload(of: request))
      + PictureFrames.frame(PictureFrames.payload(of: .success(picture)))
      + PictureFrames.frame(PictureFrames.payload(of: .failure(failure)))
    for chunk in [1, 3, 7, stream.count] {
      let found = try payloads(stream, chunk: chunk)
      try #require(found.count == 3)
      #expect(try PictureFrames.request(from: found[0]) == request)
      #expect(try PictureFrames.reply(from: found[1]) == .success(picture))
      #expect(try PictureFrames.reply(from: found[2]) == .failure(failure))
    }
  }

  @Test func aStreamThatEndsInsideAFrameIsTruncated() throws {
    let frame = PictureFrames.frame(PictureFrames.payload(of: .success(picture)))
    #expect(throws: PictureFrames.Malformed.truncated(received: 2, expected: 4)) {
      try payloads(Array(frame.prefix(2)), chunk: 1)
    }
    #expect(throws: PictureFrames.Malformed.truncated(received: 10, expected: frame.count)) {
      try payloads(Array(frame.prefix(10)), chunk: 4)
    }
  }

  @Test func aLengthOverTheLimitIsRefusedBeforeItsBytesArrive() throws {
    var reader = FrameReader(limit: PictureFrames.maximumReply)
    reader.append([0xFF, 0xFF, 0xFF, 0xFF])
    #expect(throws: PictureFrames.Malformed.tooLong(length: 0xFFFF_FFFF, limit: 64 << 20)) {
      try reader.next()
    }
    // One byte over a small limit, and exactly at it.
    var small = FrameReader(limit: 8)
    small.append([9, 0, 0, 0])
    #expect(throws: PictureFrames.Malformed.tooLong(length: 9, limit: 8)) { try small.next() }
    #expect(
      try payloads([8, 0, 0, 0] + Array(repeating: 7, count: 8), chunk: 5, limit: 8).count == 1)
  }

  @Test func garbageRepliesAreRefusedWithAReason() {
    var good = PictureFrames.payload(of: .success(picture))
    let cases: [([UInt8], String)] = [
      ([], "an empty reply"),
      ([7, 1, 2], "a reply whose status is 7"),
      (Array(good.prefix(11)), "a picture reply of 11 bytes, with no picture"),
      (
        {
          good[1] = 2; return good
        }(), "a picture whose PNG flag is 2"
      ),
      (
        {
          good[1] = 0; good[2] = 9; return good
        }(), "a picture from the unknown source 9"
      ),
      (
        {
          good[2] = 3; good[3...6] = [0, 0, 0, 0]; return good
        }(), "a picture of 0 x 48 pixels"
      ),
      (
        [1] + Array(repeating: 0x41, count: PictureFrames.maximumReason + 1),
        "a reason of 4097 bytes"
      ),
    ]
    for (payload, reason) in cases {
      #expect(throws: PictureFrames.Malformed.invalid(reason)) {
        try PictureFrames.reply(from: payload)
      }
    }
  }

  @Test func garbageRequestsAreRefusedWithAReason() throws {
    var good = PictureFrames.payload(
      of: PictureFrames.Request(path: LibraryPath("a.jpg"), side: 80, fills: false))
    #expect(throws: PictureFrames.Malformed.self) { try PictureFrames.request(from: [1]) }
    #expect(throws: PictureFrames.Malformed.self) {
      try PictureFrames.request(from: Array(good.prefix(10)))
    }
    good[9] = 5
    #expect(throws: PictureFrames.Malformed.invalid("a request whose fill flag is 5")) {
      try PictureFrames.request(from: good)
    }
    good[9] = 0
    good[0] = 2
    #expect(throws: PictureFrames.Malformed.self) { try PictureFrames.request(from: good) }
    good[0] = 1
    #expect(throws: PictureFrames.Malformed.invalid("a request whose path holds a NUL byte")) {
      try PictureFrames.request(from: good + [0])
    }
    // A negative or huge side goes through as it is: the library refuses it, as in process.
    let odd = PictureFrames.Request(path: LibraryPath("a.jpg"), side: -5, fills: false)
    #expect(try PictureFrames.request(from: PictureFrames.payload(of: odd)) == odd)
  }

  @Test func aLongReasonIsCutOnACharacterBoundary() throws {
    // 'é' is two bytes: 4,097 of them cross the limit in the middle of one.
    let message = "x" + String(repeating: "é", count: 3000)
    let payload = PictureFrames.payload(of: .failure(PictureFailure(message: message)))
    #expect(payload.count == PictureFrames.maximumReason)
    let reason = try #require(try PictureFrames.reply(from: payload).failureMessage)
    #expect(message.hasPrefix(reason))
    #expect(reason.utf8.count == PictureFrames.maximumReason - 1)
  }
}

/// The pieces of the worker pool that need no process: its arguments and its messages.
struct WorkerPartsTests {
  @Test func theWorkerGetsTheOptionsThatDecideWhichFilesAreAssets() throws {
    let options = LibraryOptions(
      includesHiddenFiles: true,
      selection: FileSelection(extensions: ["heic", ".JPG"], excluding: ["Trash", "--hidden"]),
      index: .userCache, verifiesFileEnds: true)
    let arguments = PictureWorker.arguments(for: options)
    #expect(
      arguments == [
        "--hidden", "--verify", "--ext", "JPG", "--ext", "heic", "--exclude", "Trash", "--exclude",
        "--hidden",
      ])
    let read = try #require(PictureWorker.libraryOptions(arguments))
    #expect(read.includesHiddenFiles && read.verifiesFileEnds)
    #expect(read.selection == options.selection)
    // The index stays the Demo's.
    #expect(read.index == .none)
    #expect(PictureWorker.arguments(for: LibraryOptions()).isEmpty)
    #expect(PictureWorker.libraryOptions(["--ext"]) == nil)
    #expect(PictureWorker.libraryOptions(["--index", "x"]) == nil)
  }

  @Test func aWorkerStatusIsSaidInWords() {
    #expect(WorkerProcess.describe(status: SIGSEGV) == "its picture worker was killed by SIGSEGV")
    #expect(WorkerProcess.describe(status: SIGKILL) == "its picture worker was killed by SIGKILL")
    #expect(WorkerProcess.describe(status: 40) == "its picture worker was killed by signal 40")
    #expect(
      WorkerProcess.describe(status: 3 << 8)
        == "its picture worker exited with status 3 before answering")
    #expect(WorkerProcess.seconds(.seconds(15)) == "15 s")
    #expect(WorkerProcess.seconds(.milliseconds(1500)) == "1.5 s")
  }
}

extension Result where Failure == PictureFailure {
  /// The failure's message, or `nil` for a success.
  var failureMessage: String? {
    if case .failure(let failure) = self { return failure.message }
    return nil
  }
}
