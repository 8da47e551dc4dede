import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Hostile XMP packets carried by every route a packet takes into the engine: JPEG `APP1`
/// (with and without complete EXIF), PNG `iTXt`, PSD image resource, JPEG 2000 `uuid` box,
/// HEIF `mime` item, TIFF tag 700 (through exiv2) and an `.xmp` sidecar. Each file is
/// built here around a packet from ``HostileXMP``; each packet also carries a capture
/// date, so a route that read it shows that date.
enum HostileXMP {
  /// A Google motion-photo packet with `DateTimeOriginal` 2021-06-07T08:09:10 whose
  /// `Container:Directory` lists a primary image, the video with `length` (and `padding`)
  /// and then `after`, each a `(Length, Padding)` pair written as given.
  static func motionPhoto(
    length: String, padding: String? = nil, after: [(String, String)] = []
  ) -> [UInt8] {
    func item(_ attributes: String) -> String {
      "<rdf:li rdf:parseType=\"Resource\"><Container:Item \(attributes)/></rdf:li>"
    }
    var items = item("Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"")
    items += item(
      "Item:Semantic=\"MotionPhoto\" Item:Mime=\"video/mp4\" Item:Length=\"\(length)\""
        + (padding.map { " Item:Padding=\"\($0)\"" } ?? ""))
    for (length, padding) in after {
      items += item(
        "Item:Semantic=\"Depth\" Item:Mime=\"image/jpeg\" Item:Length=\"\(length)\""
          + " Item:Padding=\"\(padding)\"")
    }
    return Array(
      """
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
      xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
      xmlns:exif="http://ns.adobe.com/exif/1.0/" \
      xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
      xmlns:Container="http://ns.google.com/photos/1.0/container/" \
      xmlns:Item="http://ns.google.com/photos/1.0/container/item/" GCamera:MotionPhoto="1" \
      exif:DateTimeOriginal="2021-06-07T08:09:10"><Container:Directory><rdf:Seq>\(items)\
      </rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
      """.utf8)
  }

  /// 18-digit numbers, each fine alone, whose sum overflows: what used to trap.
  static let overflowingDirectory = motionPhoto(
    length: "999999999999999999", padding: "999999999999999999",
    after: Array(repeating: ("999999999999999999", "999999999999999999"), count: 12))

  /// The date every packet of ``motionPhoto(length:padding:after:)`` carries.
  static let date = "2021-06-07T08:09:10"

  // MARK: Routes

  static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
  static func be32(_ value: Int) -> [UInt8] { BoxBuilder.be32(UInt32(value)) }

  /// A JPEG whose `APP1` holds the packet (after its EXIF `APP1`, when `exif` is given).
  static func jpeg(_ packet: [UInt8], exif: [UInt8]? = nil) -> [UInt8] {
    let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + packet
    let plain = EXIFTestBuilder.jpeg(app1: exif.map { [0x45, 0x78, 0x69, 0x66, 0, 0] + $0 })
    // The XMP segment goes right after SOI and any EXIF segment, before SOF0.
    let sof = plain.indices.first { plain[$0] == 0xFF && plain[$0 + 1] == 0xC0 } ?? 2
    return Array(plain[..<sof]) + [0xFF, 0xE1] + be16(payload.count + 2) + payload
      + Array(plain[sof...])
  }

  /// A PNG whose `iTXt` chunk `XML:com.adobe.xmp` holds the packet.
  static func png(_ packet: [UInt8]) throws -> [UInt8] {
    PNGBuilder.png(
      before: [try PNGBuilder.internationalText("XML:com.adobe.xmp", packet, compressed: false)])
  }

  /// A PSD whose image resource `0x0424` holds the packet.
  static func psd(_ packet: [UInt8]) -> [UInt8] {
    let resource =
      Array("8BIM".utf8) + be16(0x0424) + [0, 0] + be32(packet.count) + packet
      + (packet.count % 2 == 1 ? [0] : [])
    return Array("8BPS".utf8) + be16(1) + [0, 0, 0, 0, 0, 0] + be16(3) + be32(5) + be32(7)
      + be16(8) + be16(3) + be32(0) + be32(resource.count) + resource
  }

  /// A JP2 whose XMP `uuid` box holds the packet.
  static func jp2(_ packet: [UInt8]) -> [UInt8] {
    func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
      be32(content.count + 8) + Array(type.utf8) + content
    }
    let xmpUUID: [UInt8] = [
      0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF,
      0xAC,
    ]
    return [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
      + box("jp2h", box("ihdr", be32(9) + be32(11) + [0, 3, 7, 7, 0, 0]))
      + box("uuid", xmpUUID + packet)
  }

  /// A HEIF whose `mime` item (`application/rdf+xml`), describing the primary item, holds
  /// the packet.
  static func heif(_ packet: [UInt8]) -> [UInt8] {
    let mime = BoxBuilder.fullBox(
      "infe", version: 2,
      BoxBuilder.be16(2) + BoxBuilder.be16(0) + Array("mime".utf8) + [0]
        + Array("application/rdf+xml".utf8) + [0])
    return BoxBuilder.heif(data: packet) { offset in
      [
        BoxBuilder.pitm(1),
        BoxBuilder.iinf([BoxBuilder.infe(1, "hvc1"), mime]),
        BoxBuilder.iloc(
          version: 0,
          [
            .init(
              itemID: 2,
              extents: [.init(offset: UInt64(offset), length: UInt64(packet.count))])
          ]),
        BoxBuilder.iref([("cdsc", 2, [1])]),
        BoxBuilder.iprp([BoxBuilder.ispe(9, 7)], associations: [(1, [1])]),
      ]
    }
  }

  /// A little-endian TIFF of 9×7 pixels whose tag 700 holds the packet.
  static func tiff(_ packet: [UInt8]) -> [UInt8] {
    BoxBuilder.standaloneTIFF([
      (0x0100, .short([9])), (0x0101, .short([7])), (0x02BC, .byte(packet)),
    ])
  }
}

@Suite struct XMPRouteTests {
  private func read(_ bytes: [UInt8], as format: MediaFormat) -> MediaMetadata {
    MetadataReaderTable.read(from: ArrayByteSource(bytes), format: format)
  }

  /// The files of every embedded route around `packet`, with their formats.
  private func embedded(_ packet: [UInt8]) throws -> [(String, [UInt8], MediaFormat)] {
    [
      ("JPEG APP1", HostileXMP.jpeg(packet), .jpeg),
      ("PNG iTXt", try HostileXMP.png(packet), .png),
      ("PSD resource", HostileXMP.psd(packet), .psd),
      ("JP2 uuid", HostileXMP.jp2(packet), .jpeg2000),
      ("HEIF mime item", HostileXMP.heif(packet), .heic),
      ("TIFF tag 700", HostileXMP.tiff(packet), .tiff),
    ]
  }

  @Test func overflowingDirectoryNumbersAreReadOnEveryEmbeddedRoute() throws {
    for (route, bytes, format) in try embedded(HostileXMP.overflowingDirectory) {
      let metadata = read(bytes, as: format)
      // The packet was interpreted (its date is taken), and nothing trapped.
      #expect(metadata.xmpDate?.iso8601 == HostileXMP.date, "\(route): \(metadata.problems)")
      #expect(metadata.embeddedVideoRange == nil, "\(route)")
    }
  }

  @Test func aMotionPhotoStillSaysWhichDirectoryNumberIsUnusable() throws {
    for (route, bytes, format) in [
      ("JPEG", HostileXMP.jpeg(HostileXMP.overflowingDirectory), MediaFormat.jpeg),
      ("HEIF", HostileXMP.heif(HostileXMP.overflowingDirectory), .heic),
    ] {
      let messages = read(bytes, as: format).problems.map(\.message)
      #expect(
        messages.contains {
          $0.contains("Container:Directory lists items after the video whose lengths add up")
        }, "\(route): \(messages)")
      #expect(!messages.contains { $0.contains("Samsung") }, "\(route)")
    }
  }

  @Test func aJPEGWithCompleteEXIFStillChecksItsMotionPhotoDirectory() {
    var builder = EXIFTestBuilder()
    builder.ifd0 = [(0x010F, .ascii("Maker")), (0x0110, .ascii("Model"))]
    builder.exif = [(0x9003, .ascii("2001:02:03 04:05:06"))]
    builder.gps = [
      (0x0001, .ascii("N")), (0x0002, .rational([(1, 1), (0, 1), (0, 1)])),
      (0x0003, .ascii("E")), (0x0004, .rational([(1, 1), (0, 1), (0, 1)])),
    ]
    let metadata = read(
      HostileXMP.jpeg(HostileXMP.overflowingDirectory, exif: builder.tiff()), as: .jpeg)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2001-02-03T04:05:06")
    #expect(metadata.problems.contains { $0.message.contains("add up past any file's size") })
  }

  @Test func anUnusableVideoLengthIsReportedAsSuchNotAsAMissingTrailer() {
    for text in ["-5", "12abc", "9999999999999999999", "0x10", "00"] {
      let file = HostileXMP.jpeg(HostileXMP.motionPhoto(length: text))
      let messages = read(file, as: .jpeg).problems.map(\.message)
      #expect(
        messages.contains {
          $0.contains("Container:Directory gives") && $0.contains("Item:Length")
        },
        "\(text): \(messages)")
      #expect(!messages.contains { $0.contains("Samsung") }, "\(text)")
    }
  }

  @Test func overflowingDirectoryNumbersInASidecarAreRead() async throws {
    let folder = try TemporaryFolder()
    try folder.write("a.jpg", EXIFTestBuilder.jpeg(app1: nil))
    try folder.write("a.xmp", HostileXMP.overflowingDirectory)
    let names = ["b.jpg", "c.png", "d.psd", "e.jp2", "f.heic", "g.tif"]
    for (name, (_, bytes, _)) in zip(names, try embedded(HostileXMP.overflowingDirectory)) {
      try folder.write(bytes, as: name)
    }
    let contents = try await enumerate(folder)
    let sidecar = try #require(contents.assets.first { $0.path == LibraryPath("a.jpg") })
    #expect(sidecar.creationDate?.iso8601 == HostileXMP.date)
    #expect(contents.assets.map(\.path.description).sorted() == ["a.jpg"] + names)
    for asset in contents.assets where asset.path != LibraryPath("a.jpg") {
      #expect(asset.creationDate?.iso8601 == HostileXMP.date, "\(asset.path)")
    }
  }
}
