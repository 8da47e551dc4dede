import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// `Demo __picture-worker`: the process ``WorkerPictures`` starts to draw pictures, so that
/// a decoder's crash, hang or memory blow-up ends this process and not the Demo's run.
///
/// Internal: not in the help. It reads ``PictureFrames`` requests from standard input and
/// writes one reply for each to standard output until standard input ends. The library is
/// the folder open on descriptor 3 (``WorkerPictures`` passes its own); the arguments
/// carry the options that decide which files are assets (`--hidden`, `--ext`, `--exclude`,
/// `--verify`), so that a path names the same asset as in the Demo. It refuses to run when
/// standard input is a terminal.
///
/// Test hook: `GROUPENUMERATOR_WORKER_FAULT=crash:<name>`, `hang:<name>`, `memory:<name>`
/// or `garbage:<name>` makes the worker raise `SIGSEGV`, sleep for good, allocate until
/// its memory limit stops it (then abort), or send a frame claiming 4 GiB, when asked for
/// a file named `<name>`; see docs/Testing.md.
enum PictureWorker {
  /// The hidden subcommand's name.
  static let subcommand = "__picture-worker"
  /// The descriptor the library folder is open on in the worker.
  static let rootDescriptor: Int32 = 3
  /// The environment variable of the test hook.
  static let faultVariable = "GROUPENUMERATOR_WORKER_FAULT"
  /// The most memory the worker may map for data (`RLIMIT_DATA`): a picture within the
  /// renderer's budgets needs far less; past it, allocations fail and the decoder fails
  /// or the worker ends.
  static let memoryLimit: rlim_t = 1 << 30
  /// Whether this process runs under AddressSanitizer or ThreadSanitizer (`make asan`,
  /// `make tsan`): their shadow memory is mapped as data, so there the memory limit would
  /// stop the worker before it draws anything, and it is left off.
  static var isSanitized: Bool { isRunningUnderSanitizer }

  /// How often the worker checks that the Demo that started it is still there.
  static let parentCheckInterval: DispatchTimeInterval = .milliseconds(500)

  /// Exit statuses (`sysexits.h`'s), each for one way a worker ends before it answers, so
  /// that the Demo's message tells them apart.
  static let malformedRequest: Int32 = 65
  /// The argument that makes a worker hand on the picture cache's stored entries
  /// (``InProcessPictures/handsOnStored``), for the page.
  static let storedArgument = "--stored"
  static let setupFailure: Int32 = 71
  static let replyFailure: Int32 = 74

  /// Runs the worker with `arguments` (after the subcommand's name) and returns its exit
  /// status: 0 when standard input ends, 64 for a bad command line or a terminal, 65 for
  /// a request that is not a well-formed frame, 71 when its descriptors cannot be set up,
  /// 74 when a reply cannot be written.
  static func run(arguments: [String]) async -> Int32 {
    var standardError = FileDescriptorStream.standardError()
    guard isatty(0) == 0 else {
      standardError.write("Error: '\(subcommand)' is internal to Demo and reads no terminal.\n")
      return DemoCommand.usageFailure
    }
    closeInheritedDescriptors()
    let handsOnStored = arguments.contains(storedArgument)
    guard let options = libraryOptions(arguments.filter { $0 != storedArgument }) else {
      standardError.write("Error: '\(subcommand)' was started with bad arguments.\n")
      return DemoCommand.usageFailure
    }
    if !isSanitized {
      var limit = rlimit(rlim_cur: memoryLimit, rlim_max: memoryLimit)
      var current = rlimit()
      if getrlimit(Int32(RLIMIT_DATA.rawValue), &current) == 0, current.rlim_max < memoryLimit {
        limit = rlimit(rlim_cur: current.rlim_max, rlim_max: current.rlim_max)
      }
      _ = setrlimit(Int32(RLIMIT_DATA.rawValue), &limit)
    }
    // The frames get descriptors of their own; standard input and output become
    // /dev/null, so that nothing a C library prints can break a frame.
    let input = fcntl(0, F_DUPFD_CLOEXEC, 10)
    let output = fcntl(1, F_DUPFD_CLOEXEC, 10)
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    guard input >= 0, output >= 0, null >= 0, dup2(null, 0) == 0, dup2(null, 1) == 1 else {
      return setupFailure
    }
    _ = close(null)
    let parent = getppid()
    let watchdog = DispatchSource.makeTimerSource(queue: .global())
    watchdog.schedule(deadline: .now() + parentCheckInterval, repeating: parentCheckInterval)
    // A Demo that ended without closing the pipe (killed) leaves a worker that may be
    // stuck in a decoder: it ends itself once it has another parent.
    watchdog.setEventHandler { if getppid() != parent { _exit(0) } }
    watchdog.resume()
    let library = AssetsLibrary(
      root: URL(fileURLWithPath: "/proc/self/fd/\(rootDescriptor)"), options: options)
    // One walk for all the pictures this worker draws, not one per picture.
    let finder = AssetFinder(library: library)
    let fault = ProcessInfo.processInfo.environment[faultVariable].flatMap(Fault.init)
    var reader = FrameReader(limit: PictureFrames.maximumRequest)
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let payload: [UInt8]
      do throws(PictureFrames.Malformed) {
        if let next = try reader.next() {
          payload = next
        } else {
          let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
          if count < 0, errno == EINTR { continue }
          guard count > 0 else {
            try reader.finish()
            return DemoCommand.success
          }
          reader.append(chunk[..<count])
          continue
        }
      } catch {
        standardError.write("Error: '\(subcommand)' received \(error).\n")
        return malformedRequest
      }
      let reply: Result<AssetImage, PictureFailure>
      do throws(PictureFrames.Malformed) {
        let request = try PictureFrames.request(from: payload)
        fault?.strike(on: request.path, output: output)
        reply = await picture(
          request, in: library, finder: finder, handsOnStored: handsOnStored)
      } catch {
        standardError.write("Error: '\(subcommand)' received \(error).\n")
        return malformedRequest
      }
      guard writeAll(PictureFrames.frame(PictureFrames.payload(of: reply)), to: output) else {
        return replyFailure
      }
    }
  }

  /// Closes the descriptors above 3 that the worker inherited by mistake (left open
  /// across `exec` by the process that started it): those without close-on-exec. The
  /// runtime's own descriptors, opened here, have it and stay.
  private static func closeInheritedDescriptors() {
    guard let directory = opendir("/proc/self/fd") else { return }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var inherited: [Int32] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard let descriptor = Int32(name), descriptor > rootDescriptor, descriptor != own else {
        continue
      }
      let flags = fcntl(descriptor, F_GETFD)
      if flags >= 0, flags & FD_CLOEXEC == 0 { inherited.append(descriptor) }
    }
    for descriptor in inherited { _ = close(descriptor) }
  }

  /// The library options in the worker's arguments, or `nil` when one is not known.
  static func libraryOptions(_ arguments: [String]) -> LibraryOptions? {
    var hidden = false
    var verifies = false
    var caches = true
    var extensions: [String] = []
    var excluded: [String] = []
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--hidden": hidden = true
      case "--verify": verifies = true
      case "--no-cache": caches = false
      case "--ext":
        guard let value = remaining.popFirst() else { return nil }
        extensions.append(value)
      case "--exclude":
        guard let value = remaining.popFirst() else { return nil }
        excluded.append(value)
      default: return nil
      }
    }
    return LibraryOptions(
      includesHiddenFiles: hidden,
      selection: FileSelection(extensions: extensions, excluding: excluded),
      verifiesFileEnds: verifies, pictureCache: caches ? .freedesktop : .none)
  }

  /// The arguments that give a worker `options` (``libraryOptions(_:)`` reads them back).
  /// The index is left out: a worker reads each file it draws anyway, and must not write
  /// an index the Demo may be writing.
  static func arguments(for options: LibraryOptions) -> [String] {
    var arguments: [String] = []
    if options.includesHiddenFiles { arguments.append("--hidden") }
    if options.verifiesFileEnds { arguments.append("--verify") }
    if options.pictureCache == .none { arguments.append("--no-cache") }
    for value in options.selection.extensions.sorted() { arguments += ["--ext", value] }
    for pattern in options.selection.excludedPatterns { arguments += ["--exclude", pattern] }
    return arguments
  }

  /// The picture `request` asks for, drawn in this process.
  private static func picture(
    _ request: PictureFrames.Request, in library: AssetsLibrary, finder: AssetFinder,
    handsOnStored: Bool
  ) async -> Result<AssetImage, PictureFailure> {
    let asset: Asset?
    do throws(LibraryError) {
      asset = try await finder.asset(at: request.path)
    } catch {
      return .failure(PictureFailure(message: error.description))
    }
    guard let asset else {
      return .failure(PictureFailure(message: "No asset has a file at '\(request.path.escaped)'."))
    }
    return await InProcessPictures(library: library, handsOnStored: handsOnStored).picture(
      of: asset, side: request.side, fills: request.fills)
  }

  /// Writes all of `bytes` to `descriptor`; `false` when it cannot (the Demo went away).
  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    bytes.withUnsafeBytes { ThumbnailFile.writeAll($0, to: descriptor) } == 0
  }

  /// What the test hook makes the worker do, and for which file name.
  struct Fault {
    enum Kind: String {
      case crash, hang, memory, garbage
    }
    let kind: Kind
    let name: [UInt8]

    /// Reads `crash:<name>`, `hang:<name>`, `memory:<name>` or `garbage:<name>`.
    init?(_ text: String) {
      guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: String(text[..<colon]))
      else { return nil }
      self.kind = kind
      name = Array(text[text.index(after: colon)...].utf8)
      guard !name.isEmpty else { return nil }
    }

    /// Misbehaves when `path` names the file (`output`: where replies go).
    func strike(on path: LibraryPath, output: Int32) {
      guard path.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) == name else {
        return
      }
      switch kind {
      case .crash:
        signal(SIGSEGV, SIG_DFL)
        raise(SIGSEGV)
      case .hang:
        while true { sleep(60) }
      case .memory:
        // As a decoder that asks for too much and aborts when refused; 4 GiB without a
        // refusal means there is no limit: the worker exits 3 rather than go on.
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<256 {
          guard let block = malloc(16 << 20) else { abort() }
          blocks.append(block)
        }
        withExtendedLifetime(blocks) { _exit(3) }
      case .garbage:
        // A frame that claims 4 GiB, then silence: the Demo must refuse it unread.
        _ = writeAll([0xFF, 0xFF, 0xFF, 0xFF, 0x00], to: output)
        while true { sleep(60) }
      }
    }
  }
}
