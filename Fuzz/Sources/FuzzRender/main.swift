// Fuzzes the picture path for stills: the bytes go to libvips through CVipsShim as an
// encoded image (the loader allow-list, the header's pixel and memory checks, shrink-on-
// load, orientation, 8-bit conversion, JPEG or PNG encoding), fitted or filled by the
// input's length, and decoded back. libvips itself is not instrumented; the shim is.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRender(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let fill = size % 2 == 1
  let orientation = size % 9 == 0 ? nil : size % 9
  let request = ImageRenderer.Request(
    width: 32, height: 24, contentMode: fill ? .aspectFill : .aspectFit,
    orientation: orientation, encoding: size % 3 == 0 ? .png : .automatic, jpegQuality: 80)
  guard let picture = try? ImageRenderer.draw(encoded: bytes, request) else { return 0 }
  // A picture is always of the asked size: both sides when filled, the limiting one when
  // fitted, never larger than the box.
  if fill
    ? (picture.width != 32 || picture.height != 24)
    : (picture.width > 32 || picture.height > 24 || (picture.width != 32 && picture.height != 24))
  {
    abort()
  }
  guard let decoded = try? ImageRenderer.decodeRGB(Array(picture.data)),
    decoded.width == picture.width, decoded.height == picture.height
  else { abort() }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzRender(data, size) })
  }
}
