// Fuzzes the picture path for movies. The bytes become a file in a private temporary
// folder (tmpfs /dev/shm when there is one, else $TMPDIR or /tmp; never the user's cache),
// opened as the library opens a movie (`LibraryFile`, beneath its folder), and handed by
// descriptor to ffmpeg through CFFmpegShim: the pread-backed AVIOContext within a byte
// range (an input whose length is 3 mod 4 sits between other bytes, as a motion photo's
// movie does), the demuxer allow-list and probe limits, the decoder, the frame search
// (first frame, near-uniform measure, seeks to later keyframes, the packet budget and the
// deadline), the display matrix and the scaling to RGB. The frame is then turned and
// drawn by libvips as `AssetsLibrary.image(for:…)` draws a movie's frame. ffmpeg and
// libvips are not instrumented; the shims (`make fuzz-build` passes `-Xcc`) and our code are.
import CFuzzDriver
import Foundation
import Glibc

@testable import GroupEnumeratorCore

/// The private folder the movie is written into, made once (mode 0700).
let fuzzFolder: String = {
  let base =
    access("/dev/shm", W_OK) == 0
    ? "/dev/shm" : (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
  var template = Array("\(base)/groupenumerator-fuzz-movie-XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { abort() }
  return String(cString: made)
}()

/// The folder opened as a library root, as the renderer opens it.
let fuzzRoot: LibraryRoot = {
  do throws(LibraryError) {
    return try LibraryRoot(path: fuzzFolder)
  } catch {
    abort()
  }
}()

let fuzzName = "movie"

/// Bytes around the movie when it is read in place (a JPEG's start before it, another
/// file's bytes after it): the reader must stay within its range.
let fuzzPrefix: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1] + Array(repeating: 0x00, count: 36)
let fuzzSuffix: [UInt8] = Array("ftypmp42 not part of the movie".utf8)

/// Writes `bytes` as the file `fuzzName` in `fuzzFolder`, replacing what was there.
func writeMovie(_ bytes: [UInt8]) {
  let descriptor = open(
    "\(fuzzFolder)/\(fuzzName)", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { abort() }
  defer { close(descriptor) }
  var written = 0
  while written < bytes.count {
    let count = bytes[written...].withUnsafeBytes { buffer in
      write(descriptor, buffer.baseAddress, buffer.count)
    }
    if count < 0, errno == EINTR { continue }
    guard count > 0 else { abort() }
    written += count
  }
}

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMovieFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard size > 0, let data else { return 0 }
  let movie = Array(UnsafeBufferPointer(start: data, count: size))
  let inPlace = size % 4 == 3
  writeMovie(inPlace ? fuzzPrefix + movie + fuzzSuffix : movie)
  defer { unlink("\(fuzzFolder)/\(fuzzName)") }
  let range = inPlace ? fuzzPrefix.count..<(fuzzPrefix.count + size) : 0..<size
  let fill = size % 2 == 1
  let shortSide = 32
  let frame: VideoFrameReader.Frame
  do {
    // Under libFuzzer's 5 s limit per input, so a deadline not kept is a timeout finding.
    let read = try LibraryFile.withOpened(root: fuzzRoot, path: LibraryPath(fuzzName)) {
      file throws(AssetProblem) -> Result<VideoFrameReader.Frame, ImageRenderer.Failure> in
      guard file.count == (inPlace ? fuzzPrefix.count + size + fuzzSuffix.count : size) else {
        abort()
      }
      do throws(ImageRenderer.Failure) {
        return .success(
          try VideoFrameReader.frame(of: file, range: range, shortSide: shortSide, timeout: 2_000))
      } catch {
        return .failure(error)
      }
    }
    guard case .success(let found) = read else { return 0 }
    frame = found
  } catch {
    abort()  // the file was just written: opening it cannot fail
  }
  // A frame is packed RGB of its size, scaled so that its shorter side fits, turned a
  // quarter at a time, at a time within the movie.
  guard frame.width > 0, frame.height > 0, frame.width <= 16384, frame.height <= 16384,
    frame.pixels.count == frame.width * frame.height * 3,
    min(frame.width, frame.height) <= shortSide,
    [0, 90, 180, 270].contains(frame.rotation), frame.timeMilliseconds >= 0
  else { abort() }
  let request = ImageRenderer.Request(
    width: 32, height: 24, contentMode: fill ? .aspectFill : .aspectFit,
    orientation: frame.orientation, encoding: size % 3 == 0 ? .png : .automatic,
    jpegQuality: 80)
  guard
    let picture = try? ImageRenderer.draw(
      rgb: frame.pixels, width: frame.width, height: frame.height, request)
  else {
    // A frame in memory has no header to refuse; libvips draws every one.
    abort()
  }
  if fill
    ? (picture.width != 32 || picture.height != 24)
    : (picture.width > 32 || picture.height > 24 || (picture.width != 32 && picture.height != 24))
  {
    abort()
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    _ = fuzzRoot
    atexit {
      unlink("\(fuzzFolder)/\(fuzzName)")
      rmdir(fuzzFolder)
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMovieFrame(data, size) })
  }
}
