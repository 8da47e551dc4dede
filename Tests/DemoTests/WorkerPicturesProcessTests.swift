import Foundation
import Glibc
import GroupEnumerator
import Testing

@testable import Demo

/// Pictures drawn in worker processes (the built Demo's `__picture-worker`): the same
/// bytes as in process, and a worker that crashes, hangs, runs out of memory or sends
/// garbage costs one picture; the test hook `GROUPENUMERATOR_WORKER_FAULT` makes it
/// misbehave.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path)
      && FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs the built Demo next to the test bundle and Fixtures/Library"))
struct WorkerPicturesProcessTests {
  // Without the desktop's thumbnail cache: no test writes into the user's `~/.cache`, and
  // every picture is drawn by the worker, not read back.
  private let library = AssetsLibrary(
    root: DemoCommand.bundledLibrary, options: LibraryOptions(pictureCache: .none))

  private func asset(_ path: String) async throws -> Asset {
    try #require(try await library.asset(at: LibraryPath(path)))
  }

  private func pool(
    workers: Int = 1, deadline: Duration = WorkerPictures.defaultDeadline, fault: String? = nil
  ) -> WorkerPictures {
    WorkerPictures(
      library: library, executable: demoExecutable.path, workers: workers, deadline: deadline,
      environment: fault.map { [PictureWorker.faultVariable: $0] } ?? [:])
  }

  /// Checks that every worker `pool` started is reaped: no longer a child of this
  /// process, not even a zombie.
  private func expectAllReaped(_ pool: WorkerPictures) async {
    let started = await pool.startedWorkers
    #expect(!started.isEmpty)
    for pid in started {
      var status: Int32 = 0
      #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "worker \(pid)")
      // The id may already be another process's, but never a child of this one.
      if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      {
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        #expect(fields.count > 1 && fields[1] != "\(getpid())", "worker \(pid): \(stat)")
      }
    }
  }

  private static let samples: [(path: String, side: Int, fills: Bool)] = [
    ("IMG_0002.jpg", 64, false), ("Videos/clip.mp4", 48, false),
    ("DCIM/100APPLE/IMG_0200.HEIC", 40, true), ("Trips/Kyoto 2019/trip-02.jpg", 80, false),
    ("Broken/broken.jpg", 80, false), ("Broken/empty.jpg", 80, false),
  ]

  @Test(.hangLimit)
  func workersDrawTheSameBytesAsThisProcessTwoAtATime() async throws {
    let workers = pool(workers: 2)
    let inProcess = InProcessPictures(library: library)
    var assets: [Asset] = []
    for sample in Self.samples { assets.append(try await asset(sample.path)) }
    let drawn = await withTaskGroup(of: (Int, Result<AssetImage, PictureFailure>).self) { group in
      for (index, sample) in Self.samples.enumerated() {
        let asset = assets[index]
        group.addTask {
          (index, await workers.picture(of: asset, side: sample.side, fills: sample.fills))
        }
      }
      var results: [Int: Result<AssetImage, PictureFailure>] = [:]
      for await (index, result) in group { results[index] = result }
      return results
    }
    await workers.shutDown()
    var pictures = 0
    for (index, sample) in Self.samples.enumerated() {
      let expected = await inProcess.picture(
        of: assets[index], side: sample.side, fills: sample.fills)
      #expect(drawn[index] == expected, "\(sample.path)")
      if case .success = expected { pictures += 1 }
    }
    #expect(pictures == 4)
    #expect(await workers.startedWorkers.count <= 2)
    await expectAllReaped(workers)
    // After shutDown, pictures fail at once.
    let late = await workers.picture(of: assets[0], side: 64, fills: false)
    #expect(
      late.failureMessage == "'IMG_0002.jpg' was not drawn: the picture workers are shut down.")
  }

  @Test(.hangLimit)
  func aWorkerKilledByASignalCostsOnePictureAndTheNextSucceeds() async throws {
    let workers = pool(fault: "crash:IMG_0002.jpg")
    let crashing = try await asset("IMG_0002.jpg")
    let movie = try await asset("Videos/clip.mp4")
    let first = await workers.picture(of: movie, side: 48, fills: false)
    let crashed = await workers.picture(of: crashing, side: 64, fills: false)
    let after = await workers.picture(of: movie, side: 48, fills: false)
    await workers.shutDown()
    #expect(
      crashed.failureMessage
        == "'IMG_0002.jpg' could not be drawn: its picture worker was killed by SIGSEGV.")
    let expected = await InProcessPictures(library: library).picture(
      of: movie, side: 48, fills: false)
    #expect(first == expected)
    #expect(after == expected)
    #expect(await workers.startedWorkers.count == 2)
    await expectAllReaped(workers)
  }

  @Test(.hangLimit)
  func aWorkerKilledWhileIdleCostsNoPicture() async throws {
    let workers = pool()
    let photo = try await asset("IMG_0002.jpg")
    let first = await workers.picture(of: photo, side: 64, fills: false)
    let idle = try #require(await workers.startedWorkers.first)
    #expect(kill(idle, SIGKILL) == 0)
    // Wait until it is dead, without reaping it (the pool does that).
    var info = siginfo_t()
    #expect(waitid(P_PID, id_t(idle), &info, WEXITED | WNOWAIT) == 0)
    let second = await workers.picture(of: photo, side: 64, fills: false)
    await workers.shutDown()
    #expect(second == first)
    #expect(await workers.startedWorkers.count == 2)
    await expectAllReaped(workers)
  }

  @Test(.hangLimit)
  func aHangPastTheDeadlineIsKilledAndTheNextPictureGetsANewWorker() async throws {
    let workers = pool(deadline: .seconds(3), fault: "hang:IMG_0002.jpg")
    let hanging = try await asset("IMG_0002.jpg")
    let other = try await asset("Trips/Kyoto 2019/trip-02.jpg")
    let hung = await workers.picture(of: hanging, side: 64, fills: false)
    #expect(
      hung.failureMessage == "'IMG_0002.jpg' could not be drawn: the picture took longer than 3 s.")
    let after = await workers.picture(of: other, side: 80, fills: false)
    await workers.shutDown()
    #expect(
      after
        == (await InProcessPictures(library: library).picture(of: other, side: 80, fills: false)))
    #expect(await workers.startedWorkers.count == 2)
    await expectAllReaped(workers)
  }

  @Test(
    .hangLimit,
    .enabled(if: !PictureWorker.isSanitized, "a sanitizer's worker has no memory limit"))
  func theMemoryLimitStopsAWorkerThatAsksForTooMuch() async throws {
    // Without a limit the hook's worker would exit with status 3 after 4 GiB.
    let workers = pool(fault: "memory:IMG_0002.jpg")
    let result = await workers.picture(of: try await asset("IMG_0002.jpg"), side: 64, fills: false)
    await workers.shutDown()
    #expect(
      result.failureMessage
        == "'IMG_0002.jpg' could not be drawn: its picture worker was killed by SIGABRT.")
    await expectAllReaped(workers)
  }

  @Test(.hangLimit)
  func aReplyWithAnOversizedLengthIsRefusedAndTheWorkerKilled() async throws {
    let workers = pool(fault: "garbage:IMG_0002.jpg")
    let result = await workers.picture(of: try await asset("IMG_0002.jpg"), side: 64, fills: false)
    let other = try await asset("Videos/clip.mp4")
    let after = await workers.picture(of: other, side: 48, fills: false)
    await workers.shutDown()
    #expect(
      result.failureMessage
        == "'IMG_0002.jpg' could not be drawn: its picture worker sent a malformed reply"
        + " (a frame of 4294967295 bytes, over the limit of 67108864).")
    #expect(
      after
        == (await InProcessPictures(library: library).picture(of: other, side: 48, fills: false)))
    await expectAllReaped(workers)
  }

  @Test(.hangLimit)
  func workersThatKeepDyingAreNotStartedForever() async throws {
    let workers = pool(fault: "crash:IMG_0002.jpg")
    let crashing = try await asset("IMG_0002.jpg")
    var messages: [String] = []
    for _ in 0..<(WorkerPictures.deathLimit + 2) {
      messages.append(
        await workers.picture(of: crashing, side: 64, fills: false).failureMessage ?? "")
    }
    await workers.shutDown()
    let killed = "'IMG_0002.jpg' could not be drawn: its picture worker was killed by SIGSEGV."
    #expect(messages.prefix(WorkerPictures.deathLimit).allSatisfy { $0 == killed })
    let refused =
      "'IMG_0002.jpg' was not drawn: 5 picture workers in a row ended without a picture"
      + " (the last: its picture worker was killed by SIGSEGV), and no more are started."
    #expect(messages.suffix(2).allSatisfy { $0 == refused }, "\(messages)")
    #expect(await workers.startedWorkers.count == WorkerPictures.deathLimit)
    await expectAllReaped(workers)
  }

  @Test(.hangLimit)
  func demoThumbnailSurvivesACrashingDecoder() throws {
    let arguments = ["thumbnail", "IMG_0002.jpg", "--size", "64", "--output", "-"]
    let crashed = try run(
      demoExecutable, arguments,
      environment: [PictureWorker.faultVariable: "crash:IMG_0002.jpg"])
    #expect(crashed.exited && crashed.status == 1 && crashed.stdout.isEmpty)
    #expect(
      crashed.stderr
        == "Error: 'IMG_0002.jpg' could not be drawn: its picture worker was killed by SIGSEGV.\n")
    let drawn = try run(demoExecutable, arguments)
    #expect(drawn.exited && drawn.status == 0, "\(drawn.stderr)")
    #expect(!drawn.stdout.isEmpty && drawn.stderr.isEmpty)
  }

  @Test(.hangLimit)
  func theWorkerOpensTheLibraryWithTheDemosOptions() throws {
    // A photo in a hidden folder is an asset only with --hidden: the worker must get it.
    let scratch = try TemporaryFolder("WorkerPictures")
    let folder = scratch.path
    try FileManager.default.createDirectory(
      atPath: folder + "/.hidden", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: DemoCommand.bundledLibrary.appendingPathComponent("IMG_0002.jpg").path,
      toPath: folder + "/.hidden/a.jpg")
    let drawn = try run(
      demoExecutable,
      ["thumbnail", ".hidden/a.jpg", folder, "--hidden", "--size", "32", "--output", "-"])
    #expect(drawn.exited && drawn.status == 0 && drawn.stderr.isEmpty, "\(drawn.stderr)")
    #expect(!drawn.stdout.isEmpty)
  }

  @Test(.hangLimit)
  func theWorkerSubcommandIsHiddenAndTakesOnlyItsOwnArguments() throws {
    let help = try run(demoExecutable, ["--help"])
    #expect(!help.stdout.contains("__picture"))
    // Standard input is /dev/null: no request, so the worker ends at once.
    let quiet = try worker(["--hidden", "--ext", "jpg"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty)
    let bad = try worker(["--format", "json"])
    #expect(bad.status == DemoCommand.usageFailure)
    #expect(bad.stderr == "Error: '__picture-worker' was started with bad arguments.\n")
  }

  /// Runs `Demo __picture-worker arguments` with standard input on `input` (/dev/null).
  private func worker(
    _ arguments: [String], input: FileHandle = .nullDevice
  ) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = demoExecutable
    process.arguments = [PictureWorker.subcommand] + arguments
    process.environment = ["SWIFT_BACKTRACE": "enable=no"]
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    try SpawnFence.exclusive { try process.run() }
    let text = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: text, as: UTF8.self))
  }
}
