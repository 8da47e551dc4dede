// Fuzzes what reads XMP and sidecars: `XMPPacket` (the UTF-8/UTF-16 check, the XML reader
// `XMPReader` and its property collector, dates, GPS, the motion-photo description), Google
// Takeout sidecars (`TakeoutSidecar`: the content check and the parse) and the Takeout name
// forms (`SidecarMatching.takeoutMediaNames`), all on the same bytes.
import CFuzzDriver
import Glibc

@testable import GroupEnumeratorCore

/// libFuzzer's per-input callback: returns 0 (keep the input); a finding traps or aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let packet = XMPPacket.parse(bytes)
  for problem in packet.problems where problem.message.isEmpty { abort() }
  // A checked text is what the parser gets: it must be valid UTF-8 without NULs.
  if let text = XMPPacket.utf8Text(bytes),
    text.contains(0) || String(validating: text, as: UTF8.self) == nil
  {
    abort()
  }
  for date in packet.dates {
    _ = date.captureDate(source: XMPFallback.sidecarSource(of: date.property))?.iso8601
  }
  if let location = packet.location,
    !(-90...90).contains(location.latitude) || !(-180...180).contains(location.longitude)
  {
    abort()
  }
  _ = TakeoutSidecar.isTakeoutSidecar(bytes)
  let sidecar = TakeoutSidecar.parse(bytes)
  for problem in sidecar.problems where problem.message.isEmpty { abort() }
  var metadata = MediaMetadata()
  XMPFallback.applySidecar(bytes, named: "fuzz.xmp", to: &metadata)
  XMPFallback.applyTakeout(bytes, named: "fuzz.json", to: &metadata)
  // A name: every media name it gives is shorter than the sidecar's own.
  let name = Array(bytes.prefix(255))
  for media in SidecarMatching.takeoutMediaNames(forSidecarNamed: name)
  where media.count >= name.count {
    abort()
  }
  return 0
}

@main enum FuzzMain {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzXMP(data, size) })
  }
}
