/// Reads an MPEG-2 transport stream, as AVCHD cameras write `.mts` and
/// `.m2ts`: the picture size and recording date from its H.264 video, and the duration
/// from its program clock references.
///
/// A stream is a run of 188-byte packets, each starting with the sync byte `0x47`; an
/// M2TS (Blu-ray, AVCHD) puts a 4-byte arrival time stamp in front of each, making 192.
/// A packet's header gives its PID, whether a payload unit starts in it, and whether an
/// adaptation field (which may carry a PCR, a 27 MHz clock) and a payload follow.
///
/// Read from the first ``maximumScanLength`` bytes: the program association table (PID 0)
/// names the program map table, whose H.264 entry (stream type `0x1B`) names the video
/// PID; that PID's PES packets are collected (at most ``maximumUnitLength`` bytes each,
/// after the PES header) and handed to ``H264Stream`` until it has the size and the date.
/// The duration is the last PCR minus the first, the last one found in one bounded read
/// of the file's last ``maximumTailLength`` bytes — what exiftool's `M2TS:Duration` gives.
///
/// How it stays safe: two bounded reads in all, every packet checked for its sync byte
/// (a lost sync ends the scan with a problem), every length checked against its packet.
enum TransportStreamReader: MetadataReader {
  /// The bytes scanned from the start for the tables, the SPS and the MDPM.
  static let maximumScanLength = 2 << 20
  /// The bytes read at the end for the last PCR (exiftool has seen it 276 KiB back).
  static let maximumTailLength = 512 << 10
  /// The most bytes of one PES packet handed to the H.264 reader: the parameter sets and
  /// SEI come first in an access unit, the slices after them are not needed.
  static let maximumUnitLength = 64 << 10
  /// The longest side believed (H.264's largest level allows about 16,900 pixels).
  static let maximumSide = 1 << 16
  /// The H.264 stream type in a program map table.
  static let h264StreamType: UInt8 = 0x1B

  /// A stream's packet layout: the packet length and where the sync byte is in it.
  struct Layout: Equatable {
    let packetLength: Int
    let syncOffset: Int
  }

  static func read(from source: some ByteSource, format: MediaFormat) -> MediaMetadata {
    collecting { metadata throws(AssetProblem) in try read(source, into: &metadata) }
  }

  /// The packet layout of a stream whose first bytes are `head`: 188-byte packets with the
  /// sync byte first, or 192-byte ones with it at 4, told by three syncs in a row.
  static func layout(of head: [UInt8]) -> Layout? {
    for layout in [
      Layout(packetLength: 192, syncOffset: 4), Layout(packetLength: 188, syncOffset: 0),
    ] {
      let syncs = (0..<3).map { layout.syncOffset + $0 * layout.packetLength }
      let available = syncs.filter { $0 < head.count }
      if !available.isEmpty, available.allSatisfy({ head[$0] == 0x47 }) { return layout }
    }
    return nil
  }

  private static func read(_ source: some ByteSource, into metadata: inout MediaMetadata)
    throws(AssetProblem)
  {
    let head = try source.bytes(at: 0, length: min(source.count, maximumScanLength))
    guard let layout = layout(of: head) else {
      metadata.report(.init(.malformed, "The transport stream's packets have no sync bytes."))
      return
    }
    var scan = Scan()
    var offset = 0
    while offset + layout.packetLength <= head.count, !scan.isDone {
      let packet = head[(offset + layout.syncOffset)..<(offset + layout.packetLength)]
      guard packet.first == 0x47 else {
        metadata.report(
          .init(.malformed, "The transport stream loses its sync at offset \(offset)."))
        break
      }
      scan.read(packet)
      offset += layout.packetLength
    }
    scan.finish()
    let scannedEnd = offset
    if let size = scan.video.size {
      if size.width <= maximumSide, size.height <= maximumSide {
        metadata.pixelWidth = size.width
        metadata.pixelHeight = size.height
      } else {
        metadata.report(
          .init(
            .invalidValue,
            "The H.264 sequence parameter set gives \(size.width)×\(size.height) pixels."))
      }
    } else {
      metadata.report(
        .init(
          .malformed,
          scan.videoPID == nil
            ? "The transport stream names no H.264 video stream in its first "
              + "\(maximumScanLength) bytes."
            : "The H.264 stream has no readable sequence parameter set in the first "
              + "\(maximumScanLength) bytes."))
    }
    metadata.make = scan.video.make
    metadata.model = scan.video.model
    if let date = scan.video.recordingDate {
      metadata.dateTimeOriginal = date
    } else if let bad = scan.video.badRecordingDate {
      metadata.report(
        .init(.invalidValue, "The AVCHD recording date (MDPM) is not a date: \(bad)."))
    }
    guard let first = scan.firstClock else { return }
    var last = scan.lastClock ?? first
    let count = source.count
    if count > scannedEnd {
      let packets = count / layout.packetLength
      let tailPackets = min(packets, maximumTailLength / layout.packetLength)
      let tailStart = (packets - tailPackets) * layout.packetLength
      let tail = try source.bytes(at: tailStart, length: tailPackets * layout.packetLength)
      var end = tail.count - tail.count % layout.packetLength
      while end >= layout.packetLength {
        let packet = tail[(end - layout.packetLength + layout.syncOffset)..<end]
        if packet.first == 0x47, let clock = clockReference(packet) {
          last = clock
          break
        }
        end -= layout.packetLength
      }
    }
    // The 33-bit clock base wraps after about 26.5 hours.
    if last < first { last += (1 << 33) * 300 }
    metadata.duration = Double(last - first) / 27_000_000
  }

  /// The PCR an adaptation field carries, in 27 MHz ticks, or `nil`.
  static func clockReference(_ packet: ArraySlice<UInt8>) -> Int? {
    let start = packet.startIndex
    guard packet.count >= 12, packet[start + 3] & 0x20 != 0, packet[start + 4] >= 7,
      packet[start + 5] & 0x10 != 0
    else { return nil }
    let b = packet[(start + 6)..<(start + 12)].map(Int.init)
    let base = b[0] << 25 | b[1] << 17 | b[2] << 9 | b[3] << 1 | b[4] >> 7
    let fraction = (b[4] & 0x01) << 8 | b[5]
    return base * 300 + fraction
  }

  /// The state of the forward scan.
  private struct Scan {
    var programMapPID: Int?
    var videoPID: Int?
    var video = H264Stream()
    var unit: [UInt8] = []
    var inUnit = false
    var firstClock: Int?
    var lastClock: Int?

    var isDone: Bool { video.isComplete && firstClock != nil }

    mutating func read(_ packet: ArraySlice<UInt8>) {
      let s = packet.startIndex
      guard packet.count >= 4 else { return }
      let unitStart = packet[s + 1] & 0x40 != 0
      let pid = Int(packet[s + 1] & 0x1F) << 8 | Int(packet[s + 2])
      let control = packet[s + 3]
      if let clock = TransportStreamReader.clockReference(packet) {
        if firstClock == nil { firstClock = clock }
        lastClock = clock
      }
      var payload = s + 4
      if control & 0x20 != 0 {
        guard packet.count > 4 else { return }
        payload += 1 + Int(packet[s + 4])
      }
      guard control & 0x10 != 0, payload < packet.endIndex else { return }
      let data = packet[payload...]
      if pid == 0, programMapPID == nil, unitStart {
        programMapPID = Self.section(data).flatMap(Self.programMapPID)
      } else if pid == programMapPID, videoPID == nil, unitStart {
        videoPID = Self.section(data).flatMap(Self.videoPID)
      } else if pid == videoPID, !video.isComplete {
        if unitStart {
          finish()
          if let body = Self.pesBody(data) {
            unit = Array(body.prefix(TransportStreamReader.maximumUnitLength))
            inUnit = true
          }
        } else if inUnit, unit.count < TransportStreamReader.maximumUnitLength {
          unit += data.prefix(TransportStreamReader.maximumUnitLength - unit.count)
        }
      }
    }

    /// Hands the PES packet collected so far to the H.264 reader.
    mutating func finish() {
      if inUnit, !unit.isEmpty { video.scan(unit) }
      unit = []
      inUnit = false
    }

    /// A PSI section that starts in this payload (after its pointer field) and ends in it:
    /// from the table ID to the end of the section, CRC included.
    static func section(_ data: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
      guard let pointer = data.first else { return nil }
      let start = data.startIndex + 1 + Int(pointer)
      guard start + 3 <= data.endIndex else { return nil }
      let length = Int(data[start + 1] & 0x0F) << 8 | Int(data[start + 2])
      guard length >= 9, start + 3 + length <= data.endIndex else { return nil }
      return data[start..<(start + 3 + length)]
    }

    /// The first program map PID of a program association table (table ID 0).
    static func programMapPID(_ section: ArraySlice<UInt8>) -> Int? {
      let s = section.startIndex
      guard section[s] == 0x00 else { return nil }
      var index = s + 8
      while index + 4 <= section.endIndex - 4 {
        let program = Int(section[index]) << 8 | Int(section[index + 1])
        let pid = Int(section[index + 2] & 0x1F) << 8 | Int(section[index + 3])
        if program != 0 { return pid }  // Program 0 names the network PID.
        index += 4
      }
      return nil
    }

    /// The PID of the first H.264 stream in a program map table (table ID 2).
    static func videoPID(_ section: ArraySlice<UInt8>) -> Int? {
      let s = section.startIndex
      guard section[s] == 0x02, section.count >= 12 else { return nil }
      let infoLength = Int(section[s + 10] & 0x0F) << 8 | Int(section[s + 11])
      var index = s + 12 + infoLength
      while index + 5 <= section.endIndex - 4 {
        let type = section[index]
        let pid = Int(section[index + 1] & 0x1F) << 8 | Int(section[index + 2])
        let esInfoLength = Int(section[index + 3] & 0x0F) << 8 | Int(section[index + 4])
        if type == TransportStreamReader.h264StreamType { return pid }
        index += 5 + esInfoLength
      }
      return nil
    }

    /// The payload of a PES packet that starts here, after its header.
    static func pesBody(_ data: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
      let s = data.startIndex
      guard data.count >= 9, data[s] == 0, data[s + 1] == 0, data[s + 2] == 1,
        data[s + 6] & 0xC0 == 0x80
      else { return nil }
      let start = s + 9 + Int(data[s + 8])
      guard start <= data.endIndex else { return nil }
      return data[start...]
    }
  }
}
