import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The files of `Fixtures/Phones`, made by `Fixtures/make-phones.sh`.
/// The `<x:xmpmeta>…</x:xmpmeta>` packet inside a file, found by its delimiters (the
/// container readers find it by structure; these tests only need the packet).
private func embeddedPacket(_ path: String) throws -> [UInt8] {
  let bytes = try Sample.phones.bytes(path)
  let open = Array("<x:xmpmeta".utf8)
  let close = Array("</x:xmpmeta>".utf8)
  let start = try #require(firstIndex(of: open, in: bytes))
  let end = try #require(firstIndex(of: close, in: bytes, from: start))
  return Array(bytes[start..<(end + close.count)])
}

private func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
  guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
  return (start...(bytes.count - needle.count)).first {
    Array(bytes[$0..<($0 + needle.count)]) == needle
  }
}

private func packet(_ text: String) -> XMPPacket { XMPPacket.parse(Array(text.utf8)) }

private func description(_ body: String, namespaces: String = "") -> String {
  """
  <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
  xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
  xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
  xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" \
  xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \(namespaces) \(body)
  </rdf:Description></rdf:RDF></x:xmpmeta>
  """
}

@Suite struct XMPPacketTests {
  @Test func theCameraComesFromXMPOnlyWhenTheFileNamesNone() throws {
    let text = description(
      """
      tiff:Make="Canon " tiff:Model="Canon EOS 5D Mark III" aux:Lens="EF24-105mm f/4L IS USM">
      """,
      namespaces: """
        xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:aux="http://ns.adobe.com/exif/1.0/aux/"
        """)
    let read = packet(text)
    #expect(read.problems.isEmpty)
    #expect(read.make == "Canon")
    #expect(read.model == "Canon EOS 5D Mark III")
    // A file that names no camera takes XMP's; one that names its own keeps it.
    var bare = MediaMetadata()
    XMPFallback.apply(Array(text.utf8), to: &bare)
    #expect(bare.make == "Canon" && bare.model == "Canon EOS 5D Mark III")
    #expect(bare.lensModel == nil)  // the lens is EXIF's LensModel only
    var own = MediaMetadata()
    own.model = "PowerShot G7 X"
    own.dateTimeOriginal = CaptureDate(
      utc: Date(timeIntervalSince1970: 0), source: .exifDateTimeOriginal)
    own.location = Location(latitude: 1, longitude: 2, altitude: nil)
    XMPFallback.apply(Array(text.utf8), to: &own)
    #expect(own.make == nil && own.model == "PowerShot G7 X" && own.lensModel == nil)
    // Control characters are not a name: a problem, and nothing taken.
    let bad = packet(
      description(
        "tiff:Make=\"Nik&#9;on\">",
        namespaces: "xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\""))
    #expect(bad.make == nil)
    #expect(bad.problems.map(\.code) == [.invalidValue])
  }

  @Test func anEditorsJPEGGivesItsDateWithOffsetAndItsPlaceFromXMPAlone() throws {
    let read = XMPPacket.parse(try embeddedPacket("XMP/edited.jpg"))
    #expect(read.problems.isEmpty)
    let date = try #require(read.bestDate)
    #expect(date.property == .exifDateTimeOriginal)
    #expect(
      date.captureDate(source: .fileModificationTime)?.iso8601 == "2019-07-14T15:30:00+02:00")
    let location = try #require(read.location)
    #expect(abs(location.latitude - 43.7384) < 1e-9)
    #expect(abs(location.longitude - -7.4246) < 1e-9)
    #expect(location.altitude == nil)
    #expect(read.motionPhoto == nil)
  }

  @Test func aSidecarXMPFileIsAPacketWithADateAndASouthernPlace() throws {
    let read = XMPPacket.parse(try Sample.phones.bytes("XMP/DSC_0001.xmp"))
    #expect(read.problems.isEmpty)
    #expect(
      read.bestDate?.captureDate(source: .fileModificationTime)?.iso8601 == "2019-07-18T12:00:00")
    #expect(abs((read.location?.latitude ?? 0) - -41.9028) < 1e-9)
    #expect(abs((read.location?.longitude ?? 0) - 12.4964) < 1e-9)
  }

  @Test func photoshopAndXMPBasicDatesAreReadFromAPNGAndATIFF() throws {
    let png = XMPPacket.parse(try embeddedPacket("XMP/edited.png"))
    #expect(png.bestDate?.property == .photoshopDateCreated)
    #expect(
      png.bestDate?.captureDate(source: .fileModificationTime)?.iso8601 == "2019-07-15T09:00:00")
    let tiff = XMPPacket.parse(try embeddedPacket("XMP/edited.tif"))
    #expect(tiff.bestDate?.property == .xmpCreateDate)
    #expect(
      tiff.bestDate?.captureDate(source: .fileModificationTime)?.iso8601 == "2019-07-16T10:00:00")
  }

  @Test func theShutterTimeWinsOverTheCreationAndTheGivenDate() {
    let read = packet(
      description(
        """
        xmp:CreateDate="2020-01-03T00:00:00" photoshop:DateCreated="2020-01-02T00:00:00" \
        exif:DateTimeOriginal="2020-01-01T10:20:30.5Z">
        """))
    #expect(
      read.dates.map(\.property) == [.exifDateTimeOriginal, .photoshopDateCreated, .xmpCreateDate])
    #expect(
      read.bestDate?.captureDate(source: .fileModificationTime)?.iso8601 == "2020-01-01T10:20:30.5Z"
    )
  }

  @Test func propertiesAreMatchedByNamespaceNotByPrefix() {
    let renamed = packet(
      """
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
      xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description \
      xmlns:e="http://ns.adobe.com/exif/1.0/" e:GPSLatitude="10,30N" \
      e:GPSLongitude="20,15,36W"><e:DateTimeOriginal>2021-02-03T04:05</e:DateTimeOriginal>\
      </rdf:Description></rdf:RDF></x:xmpmeta>
      """)
    #expect(renamed.problems.isEmpty)
    #expect(renamed.location?.latitude == 10.5)
    #expect(renamed.location?.longitude == -(20 + 15.0 / 60 + 36.0 / 3600))
    #expect(
      renamed.bestDate?.captureDate(source: .fileModificationTime)?.iso8601 == "2021-02-03T04:05:00"
    )
    let impostor = packet(
      """
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
      xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description \
      xmlns:exif="http://example.com/not-exif/" exif:DateTimeOriginal="2021-02-03T04:05"/>\
      </rdf:RDF></x:xmpmeta>
      """)
    #expect(impostor.dates.isEmpty)
  }

  @Test func altitudeIsARationalWithItsReference() {
    let read = packet(
      description(
        """
        exif:GPSLatitude="1,0N" exif:GPSLongitude="2,0E" exif:GPSAltitude="125/10" \
        exif:GPSAltitudeRef="1">
        """))
    #expect(read.location?.altitude == -12.5)
  }

  @Test(arguments: ["2019", "2019-07"])
  func aYearOrAMonthAloneIsNeitherADateNorAProblem(text: String) {
    let read = packet(description("photoshop:DateCreated=\"\(text)\">"))
    #expect(read.dates.isEmpty)
    #expect(read.problems.isEmpty)
  }

  @Test(arguments: [
    ("photoshop:DateCreated", "2019-07-14", "2019-07-14T00:00:00"),
    ("xmp:CreateDate", " 2003-08-31 ", "2003-08-31T00:00:00"),
  ])
  func aDayAloneIsADateWithoutATime(property: String, text: String, iso8601: String) throws {
    let read = packet(description("\(property)=\"\(text)\">"))
    #expect(read.problems.isEmpty)
    let date = try #require(read.bestDate)
    #expect(date.isDateOnly)
    #expect(date.captureDate(source: .xmpCreateDateDateOnly)?.iso8601 == iso8601)
  }

  @Test func aDayAloneYieldsToALaterPropertysTime() {
    let read = packet(
      description("photoshop:DateCreated=\"2019-07-14\" xmp:CreateDate=\"2019-07-15T10:00:00\">"))
    #expect(read.dates.count == 2)
    #expect(read.bestDate?.property == .xmpCreateDate && read.bestDate?.isDateOnly == false)
  }

  @Test(arguments: ["2019-07-14", "2019-02-30", "2019-7-14", "2019-07-14x"])
  func aDayInADateTimeOriginalOrAnImpossibleDayIsNoDate(text: String) {
    let original = packet(description("exif:DateTimeOriginal=\"\(text)\">"))
    #expect(original.dates.isEmpty)
    let created = packet(description("xmp:CreateDate=\"\(text)\">"))
    #expect(created.dates.filter(\.isDateOnly).count == (text == "2019-07-14" ? 1 : 0))
  }

  @Test(arguments: [
    "2019-07-14T10", "2019-07-1", "2019-02-30T10:00:00", "2019-07-14T25:00:00",
    "2019-07-14T10:00:00+19:00", "2019-07-14T10:00:00+0200", "2019-07-14T10:00:00.", "yesterday",
  ])
  func anImpossibleDateIsAProblemNotADate(text: String) {
    let read = packet(description("exif:DateTimeOriginal=\"\(text)\">"))
    #expect(read.dates.isEmpty)
    #expect(read.problems.map(\.code) == [.invalidValue])
    #expect(read.problems.first?.message.contains("exif:DateTimeOriginal") == true)
  }

  @Test(arguments: [
    ("43,44.304N", 43.7384), ("0,30S", -0.5), ("10,30,36N", 10.51), (" 5,6.0n ", 5.1),
  ])
  func coordinatesInBothXMPFormsAreRead(text: String, expected: Double) throws {
    let value = try #require(XMPValueText.coordinate(text, positive: "N", negative: "S"))
    #expect(abs(value - expected) < 1e-9)
  }

  @Test(arguments: ["43.7384", "43,44.304E", "43,60N", "43,4.5,6N", "-43,1N", "43,,1N", "N"])
  func coordinatesInOtherFormsAreRefused(text: String) {
    #expect(XMPValueText.coordinate(text, positive: "N", negative: "S") == nil)
  }

  @Test func aPositionWithOnlyOneHalfIsAProblem() {
    let read = packet(description("exif:GPSLatitude=\"1,0N\">"))
    #expect(read.location == nil)
    #expect(read.problems.map(\.code) == [.invalidValue])
  }
}

@Suite struct XMPHostilePacketTests {
  @Test func anEntityBombIsRefusedBeforeParsing() {
    var text = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\">"
    for level in 1...9 {
      text +=
        "<!ENTITY a\(level) \""
        + String(repeating: "&a\(level == 1 ? "" : String(level - 1));", count: 10) + "\">"
    }
    text += "]><x>&a9;</x>"
    let read = packet(text)
    #expect(read.problems.map(\.code) == [.malformed])
    #expect(read.problems.first?.message.contains("DOCTYPE") == true)
  }

  /// A packet whose DOCTYPE, written in `encoding` (which the XML declaration names, in
  /// ASCII as libxml2 expects it), defines the entity `d` as a date that the packet's
  /// `DateTimeOriginal` then uses: a date read means the DTD was parsed.
  private func hiddenDoctype(_ encoding: String, _ encode: (String) -> [UInt8]) -> [UInt8] {
    Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>".utf8)
      + encode("<!DOCTYPE x [<!ENTITY d \"2020-01-02T03:04:05\">]>")
      + Array(description("exif:DateTimeOriginal=\"&d;\">").utf8)
  }

  /// UTF-7 (RFC 2152) of `text`: every character other than letters, digits and spaces
  /// as a `+…-` run of modified base64 over its UTF-16 units.
  private func utf7(_ text: String) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    for character in text.unicodeScalars {
      if character.properties.isAlphabetic || ("0"..."9").contains(character) || character == " " {
        out.append(UInt8(character.value))
        continue
      }
      let units = [UInt8(character.value >> 8), UInt8(character.value & 0xFF)]
      let bits = UInt32(units[0]) << 16 | UInt32(units[1]) << 8
      out.append(UInt8(ascii: "+"))
      for shift in [18, 12, 6] { out.append(alphabet[Int(bits >> UInt32(shift) & 0x3F)]) }
      out.append(UInt8(ascii: "-"))
    }
    return out
  }

  @Test func aDoctypeHiddenByADeclaredEncodingIsNeverExpanded() {
    // libxml2 would decode these as UTF-7 or ISO-2022-JP (whose ASCII escape `ESC ( B`
    // leaves the text as it is) and find the DOCTYPE; the declaration is blanked, so it
    // reads UTF-8 and the bytes are what the DTD check saw.
    for (encoding, bytes) in [
      ("UTF-7", hiddenDoctype("UTF-7", utf7)),
      ("ISO-2022-JP", hiddenDoctype("ISO-2022-JP") { [0x1B, 0x28, 0x42] + Array($0.utf8) }),
      ("UTF-16 named in UTF-8", hiddenDoctype("UTF-16") { Array($0.utf8) }),
    ] {
      let read = XMPPacket.parse(bytes)
      #expect(read.dates.isEmpty, "\(encoding)")
      #expect(read.problems.map(\.code) == [.malformed], "\(encoding): \(read.problems)")
    }
    // The UTF-7 text really hides it: no `<!DOCTYPE` in its bytes.
    #expect(!String(decoding: hiddenDoctype("UTF-7", utf7), as: UTF8.self).contains("<!DOCTYPE"))
  }

  @Test func aDeclaredEncodingIsIgnoredForAPacketThatIsUTF8() {
    for encoding in ["UTF-7", "ISO-8859-1", "UTF-16", "EBCDIC-US"] {
      let text =
        "\u{FEFF}<?xml version=\"1.0\"\n encoding=\"\(encoding)\"?>\n"
        + description("exif:DateTimeOriginal=\"2020-01-02T03:04:05\">")
      let read = packet(text)
      #expect(read.problems.isEmpty, "\(encoding): \(read.problems)")
      #expect(read.dates.first?.components.year == 2020, "\(encoding)")
    }
  }

  @Test(arguments: [
    "<!ENTITY e \"x\">", "<!doctype x>", "<!ELEMENT x ANY>", "<!-- c --><!DOCTYPE x>",
    "<!ATTLIST x a CDATA #IMPLIED>",
  ])
  func everyDeclarationIsRefused(prefix: String) {
    let read = packet(prefix + description("exif:DateTimeOriginal=\"2020-01-02T03:04:05\">"))
    #expect(read.dates.isEmpty)
    #expect(
      read.problems.map(\.message) == [
        "The XMP packet declares a DOCTYPE, which XMP never has; ignored."
      ])
  }

  @Test func aDoctypeInACommentOrCDATAIsText() {
    let read = packet(
      "<!-- <!DOCTYPE x> -->"
        + description(
          "exif:DateTimeOriginal=\"2020-01-02T03:04:05\"><exif:UserComment>"
            + "<![CDATA[<!DOCTYPE y>]]></exif:UserComment>"))
    #expect(read.problems.isEmpty, "\(read.problems)")
    #expect(read.dates.count == 1)
  }

  @Test func aFloodOfNamespacesIsRefusedPastItsCap() {
    func declarations(_ count: Int) -> String {
      (0..<count).map { "xmlns:n\($0)=\"urn:n\($0)\"" }.joined(separator: " ")
    }
    let limit = XMPPacket.maximumNamespaceDeclarations
    // The packet's own declarations: x, rdf, exif, xmp, photoshop and GCamera.
    let own = 6
    let atLimit = packet(
      description(declarations(limit - own) + " exif:DateTimeOriginal=\"2020-01-02T03:04:05\">"))
    #expect(atLimit.problems.isEmpty, "\(atLimit.problems)")
    #expect(atLimit.dates.count == 1)
    let over = packet(
      description(declarations(limit - own + 1) + " exif:DateTimeOriginal=\"2020-01-02T03:04:05\">")
    )
    #expect(over.dates.isEmpty)
    #expect(
      over.problems.map(\.message) == [
        "The XMP packet declares more than \(limit) namespaces; ignored."
      ])
    // Spread over many elements, one each, it is the same count.
    var nested = ""
    for index in 0...limit { nested += "<n\(index):e xmlns:n\(index)=\"urn:n\(index)\"/>" }
    #expect(packet("<a>" + nested + "</a>").problems.first?.message.contains("namespaces") == true)
  }

  @Test func aFloodOfAttributesIsRefusedPastItsCap() {
    let limit = XMPPacket.maximumAttributes
    var body = ""
    for index in 0..<(limit + 1) { body += "exif:P\(index)=\"\(index)\" " }
    let read = packet(description(body + "exif:DateTimeOriginal=\"2020-01-01T00:00\">"))
    #expect(read.dates.isEmpty)
    #expect(
      read.problems.map(\.message) == [
        "The XMP packet has more than \(limit) attributes; ignored."
      ])
    // Quotes and `>` inside values do not end the count: `=` in a value is not an attribute.
    let values = packet(
      description("exif:A=\"a=b>c\" exif:B='x=>y' exif:DateTimeOriginal=\"2020-01-01T00:00\">"))
    #expect(values.problems.isEmpty, "\(values.problems)")
  }

  @Test func anExternalEntityIsNeverFetched() {
    let read = packet(
      "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
        + description("exif:DateTimeOriginal=\"&e;\">"))
    #expect(read.dates.isEmpty)
    #expect(read.problems.map(\.code) == [.malformed])
  }

  @Test func aPacketLargerThanTheBudgetIsAProblem() {
    let body = String(repeating: " ", count: XMPPacket.maximumSize)
    let read = packet(description(body + ">"))
    #expect(read.problems.map(\.code) == [.malformed])
    #expect(read.problems.first?.message.contains("more than the \(XMPPacket.maximumSize)") == true)
  }

  @Test(arguments: [
    "", "<x:xmpmeta", "not xml at all", "<a><b></a></b>", "\u{0}\u{1}\u{2}",
    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF>",
  ])
  func brokenXMLIsAProblemAndNothingElse(text: String) {
    let read = packet(text)
    #expect(read.dates.isEmpty && read.location == nil && read.motionPhoto == nil)
    #expect(read.problems.map(\.code) == [.malformed])
  }

  @Test func aFloodOfPropertiesIsBoundedAndStillParsed() {
    var body = ""
    for index in 0..<20_000 { body += "exif:P\(index)=\"\(index)\" " }
    let read = packet(description(body + "exif:DateTimeOriginal=\"2020-01-01T00:00\">"))
    #expect(read.problems.isEmpty)
  }

  @Test func aVeryLongValueIsCutInItsProblemMessage() throws {
    let long = String(repeating: "9", count: 10_000)
    let read = packet(description("exif:DateTimeOriginal=\"\(long)\">"))
    let message = try #require(read.problems.first?.message)
    #expect(message.count < 200)
  }
}

@Suite struct MotionPhotoXMPTests {
  @Test func aGoogleMotionPhotoPlacesItsVideoAtTheEndOfTheFile() throws {
    let path = "Motion/PXL_20240202_100000000.MP.jpg"
    let bytes = try Sample.phones.bytes(path)
    let motion = try #require(XMPPacket.parse(try embeddedPacket(path)).motionPhoto)
    #expect(motion.mimeType == "video/mp4")
    #expect(motion.presentationTimestamp == 500_000)
    #expect(motion.placement == .fromEnd(length: 2269, bytesAfter: 0))
    let range = try #require(motion.videoRange(fileSize: bytes.count, imageEnd: 2))
    #expect(range == (bytes.count - 2269)..<bytes.count)
    #expect(Array(bytes[(range.lowerBound + 4)..<(range.lowerBound + 8)]) == Array("ftyp".utf8))
  }

  @Test func aGoogleMotionPhotoInAHEICIsPlacedTheSameWay() throws {
    let path = "Motion/PXL_20240202_100015000.MP.heic"
    let bytes = try Sample.phones.bytes(path)
    let motion = try #require(XMPPacket.parse(try embeddedPacket(path)).motionPhoto)
    let range = try #require(motion.videoRange(fileSize: bytes.count, imageEnd: 0))
    #expect(Array(bytes[(range.lowerBound + 4)..<(range.lowerBound + 8)]) == Array("ftyp".utf8))
  }

  @Test func aMicroVideoOffsetCountsFromTheEnd() throws {
    let path = "Motion/MVIMG_20240202_100005.jpg"
    let bytes = try Sample.phones.bytes(path)
    let motion = try #require(XMPPacket.parse(try embeddedPacket(path)).motionPhoto)
    #expect(motion.placement == .fromEnd(length: 2269, bytesAfter: 0))
    #expect(
      motion.videoRange(fileSize: bytes.count, imageEnd: 2) == (bytes.count - 2269)..<bytes.count)
  }

  @Test func aMotionPhotoOffsetWithoutADirectoryCountsFromTheEnd() throws {
    let packet = Array(
      #"""
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF
        xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""
        xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1"
        GCamera:MotionPhotoOffset="2745"/></rdf:RDF></x:xmpmeta>
      """#.utf8)
    let motion = try #require(XMPPacket.parse(packet).motionPhoto)
    #expect(motion.placement == .fromEnd(length: 2745, bytesAfter: 0))
    #expect(motion.videoRange(fileSize: 3000, imageEnd: 100) == 255..<3000)
  }

  @Test func aSamsungMotionPhotoIsFoundThroughItsTrailer() throws {
    let path = "Motion/20240202_110010.jpg"
    let bytes = try Sample.phones.bytes(path)
    let motion = try #require(XMPPacket.parse(try embeddedPacket(path)).motionPhoto)
    #expect(motion.placement == .trailer)
    #expect(motion.videoRange(fileSize: bytes.count, imageEnd: 0) == nil)
    let range = try #require(
      try SamsungTrailer.videoRange(in: ArrayByteSource(bytes), imageEnd: 2))
    // The MP4 the script appended: 2,269 bytes, starting with its `ftyp` box.
    #expect(range.count == 2269)
    #expect(Array(bytes[(range.lowerBound + 4)..<(range.lowerBound + 8)]) == Array("ftyp".utf8))
    // The video and the trailer's directory (SEFH, one entry, length, SEFT) end the file.
    #expect(range.upperBound == bytes.count - (12 + 12 + 8))
  }

  @Test func directoryLengthsThatDoNotFitTheFileAreNotTrusted() {
    let huge = description(
      """
      GCamera:MotionPhoto="1" xmlns:Container="http://ns.google.com/photos/1.0/container/" \
      xmlns:Item="http://ns.google.com/photos/1.0/container/item/"><Container:Directory>\
      <rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" \
      Item:Mime="image/jpeg"/></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item \
      Item:Semantic="MotionPhoto" Item:Mime="video/mp4" Item:Length="999999999999"/>\
      </rdf:li></rdf:Seq></Container:Directory>
      """)
    let motion = XMPPacket.parse(Array(huge.utf8)).motionPhoto
    #expect(motion?.placement == .fromEnd(length: 999_999_999_999, bytesAfter: 0))
    #expect(motion?.videoRange(fileSize: 5000, imageEnd: 2) == nil)
    // A video that would start inside the image data is refused too.
    #expect(motion?.videoRange(fileSize: 1_000_000_000_000, imageEnd: 2_000) == nil)
  }

  @Test func directoryNumbersWhoseSumOverflowsAreUnusableNotATrap() throws {
    let motion = try #require(XMPPacket.parse(HostileXMP.overflowingDirectory).motionPhoto)
    #expect(
      motion.placement
        == .unusable(
          reason: "lists items after the video whose lengths add up past any file's size"))
    #expect(motion.videoRange(fileSize: Int.max, imageEnd: 0) == nil)
    // The largest numbers that do not overflow still place the video, checked by the file.
    let fits = try #require(
      XMPPacket.parse(
        HostileXMP.motionPhoto(
          length: "999999999999999999", padding: "0",
          after: [("999999999999999999", "999999999999999999")])
      ).motionPhoto)
    #expect(
      fits.placement
        == .fromEnd(length: 999_999_999_999_999_999, bytesAfter: 1_999_999_999_999_999_998))
    #expect(fits.videoRange(fileSize: 5000, imageEnd: 2) == nil)
    #expect(
      fits.videoRange(fileSize: Int.max, imageEnd: 0)
        == (Int.max - 2_999_999_999_999_999_997)..<(Int.max - 1_999_999_999_999_999_998))
  }

  @Test(arguments: [
    ("-5", #"gives Item:Length "-5", not a byte count"#),
    ("1e9", #"gives Item:Length "1e9", not a byte count"#),
    ("9999999999999999999", #"gives Item:Length "9999999999999999999", not a byte count"#),
    ("٣", #"gives Item:Length "٣", not a byte count"#),
    ("000", "gives the video an Item:Length of 0 bytes"),
  ])
  func anUnusableVideoLengthSaysSo(text: String, reason: String) throws {
    let motion = try #require(XMPPacket.parse(HostileXMP.motionPhoto(length: text)).motionPhoto)
    #expect(motion.placement == .unusable(reason: reason))
  }

  /// Spaces around a number are trimmed (the trim's fast path leaves text without them as
  /// it is); a combining mark after the last digit makes a character that is no digit.
  @Test(arguments: [
    (" 300 ", MotionPhotoDescription.Placement.fromEnd(length: 300, bytesAfter: 0)),
    ("300", .fromEnd(length: 300, bytesAfter: 0)),
    ("\u{2003}300", .unusable(reason: "gives Item:Length \"\u{2003}300\", not a byte count")),
    ("300\u{301}", .unusable(reason: "gives Item:Length \"300\u{301}\", not a byte count")),
  ])
  func aVideoLengthIsTrimmedOfSpacesOnly(
    text: String, placement: MotionPhotoDescription.Placement
  ) throws {
    let motion = try #require(XMPPacket.parse(HostileXMP.motionPhoto(length: text)).motionPhoto)
    #expect(motion.placement == placement)
  }

  @Test func anUnusablePaddingAfterTheVideoSaysSo() throws {
    let motion = try #require(
      XMPPacket.parse(HostileXMP.motionPhoto(length: "10", after: [("5", "-1")])).motionPhoto)
    #expect(motion.placement == .unusable(reason: #"gives Item:Padding "-1", not a byte count"#))
  }

  @Test func itemPropertiesWrittenAsElementsAreReadToo() {
    let text = description(
      """
      GCamera:MotionPhoto="1" xmlns:Container="http://ns.google.com/photos/1.0/container/" \
      xmlns:Item="http://ns.google.com/photos/1.0/container/item/"><Container:Directory>\
      <rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item rdf:parseType="Resource">\
      <Item:Mime>image/jpeg</Item:Mime><Item:Semantic>Primary</Item:Semantic>\
      </Container:Item></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item \
      rdf:parseType="Resource"><Item:Mime>video/mp4</Item:Mime>\
      <Item:Semantic>MotionPhoto</Item:Semantic><Item:Length>300</Item:Length>\
      <Item:Padding>4</Item:Padding></Container:Item></rdf:li></rdf:Seq></Container:Directory>
      """)
    let motion = XMPPacket.parse(Array(text.utf8)).motionPhoto
    #expect(motion?.placement == .fromEnd(length: 300, bytesAfter: 4))
    #expect(motion?.videoRange(fileSize: 1000, imageEnd: 100) == 696..<996)
  }
}

@Suite struct SamsungTrailerTests {
  /// A trailer as Samsung writes it after `imageLength` bytes of image, with the
  /// directory's numbers replaceable.
  private func file(
    imageLength: Int = 100, video: [UInt8] = Array(repeating: 7, count: 50),
    distance: UInt32? = nil, length: UInt32? = nil, entries: UInt32 = 1,
    directoryLength: UInt32? = nil, name: String = "MotionPhoto_Data"
  ) -> [UInt8] {
    func le(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    let nameBytes = Array(name.utf8)
    let field = [0, 0, 0x30, 0x0A] + le(UInt32(nameBytes.count)) + nameBytes + video
    let directory =
      Array("SEFH".utf8) + le(106) + le(entries) + [0, 0, 0x30, 0x0A]
      + le(distance ?? UInt32(field.count)) + le(length ?? UInt32(field.count))
    return Array(repeating: 0xAB, count: imageLength) + field + directory
      + le(directoryLength ?? UInt32(directory.count)) + Array("SEFT".utf8)
  }

  @Test func aWellFormedTrailerGivesExactlyTheVideoBytes() throws {
    let bytes = file()
    let range = try #require(
      try SamsungTrailer.videoRange(in: ArrayByteSource(bytes), imageEnd: 100))
    #expect(Array(bytes[range]) == Array(repeating: 7, count: 50))
  }

  @Test(arguments: [
    ("distance past the start", UInt32?.some(1_000_000), UInt32?.none, UInt32(1), UInt32?.none),
    ("length past the directory", nil, 1_000_000, 1, nil),
    ("a million entries", nil, nil, 1_000_000, nil),
    ("directory longer than the file", nil, nil, 1, 0xFFFF_FFF0),
    ("directory too short", nil, nil, 1, 4),
  ])
  func numbersThatDoNotAddUpGiveNoVideo(
    name: String, distance: UInt32?, length: UInt32?, entries: UInt32, directoryLength: UInt32?
  ) throws {
    let bytes = file(
      distance: distance, length: length, entries: entries, directoryLength: directoryLength)
    #expect(try SamsungTrailer.videoRange(in: ArrayByteSource(bytes), imageEnd: 100) == nil)
  }

  @Test func aFieldInsideTheImageDataOrWithAnotherNameIsNotTheVideo() throws {
    #expect(try SamsungTrailer.videoRange(in: ArrayByteSource(file()), imageEnd: 120) == nil)
    let renamed = file(name: "Other_Data_123456")
    #expect(try SamsungTrailer.videoRange(in: ArrayByteSource(renamed), imageEnd: 100) == nil)
  }

  @Test func aFileWithoutATrailerHasNone() throws {
    let jpeg = try Sample.phones.bytes("Motion/MVIMG_20240202_100005.jpg")
    #expect(try SamsungTrailer.videoRange(in: ArrayByteSource(jpeg), imageEnd: 2) == nil)
    #expect(try SamsungTrailer.videoRange(in: ArrayByteSource([]), imageEnd: 0) == nil)
  }
}

@Suite struct TakeoutSidecarTests {
  @Test func aTakeoutSidecarGivesTheTakenTimeAndThePlaceNotTheUploadTime() throws {
    let bytes = try Sample.phones.bytes("Takeout/IMG_20190801_140000.jpg.json")
    #expect(TakeoutSidecar.isTakeoutSidecar(bytes))
    let sidecar = TakeoutSidecar.parse(bytes)
    #expect(sidecar.problems.isEmpty)
    #expect(sidecar.takenTime == Date(timeIntervalSince1970: 1_564_668_000))
    #expect(sidecar.location == Location(latitude: 51.5007, longitude: -0.1246, altitude: 11))
  }

  @Test func otherJSONFilesAreNotTakeoutSidecars() throws {
    #expect(!TakeoutSidecar.isTakeoutSidecar(try Sample.phones.bytes("Other/settings.json")))
    #expect(!TakeoutSidecar.isTakeoutSidecar(Array("[1, 2]".utf8)))
    #expect(!TakeoutSidecar.isTakeoutSidecar([]))
  }

  @Test func aZeroPlaceFallsBackToTheCamerasPlaceAndTwoZeroPlacesAreNone() {
    let camera = TakeoutSidecar.parse(
      Array(
        """
        {"photoTakenTime": {"timestamp": "0"}, "geoData": {"latitude": 0.0, "longitude": 0.0},
         "geoDataExif": {"latitude": -33.5, "longitude": 151.25, "altitude": 3.0}}
        """.utf8))
    #expect(camera.takenTime == Date(timeIntervalSince1970: 0))
    #expect(camera.location == Location(latitude: -33.5, longitude: 151.25, altitude: 3))
    let none = TakeoutSidecar.parse(
      Array(#"{"geoData": {"latitude": 0.0, "longitude": 0.0}}"#.utf8))
    #expect(none.location == nil && none.problems.isEmpty)
  }

  @Test(arguments: [
    #"{"photoTakenTime": {"timestamp": "soon"}}"#,
    #"{"photoTakenTime": {"timestamp": "99999999999999999999"}}"#,
    #"{"geoData": {"latitude": 95.0, "longitude": 10.0}}"#,
  ])
  func impossibleValuesAreProblems(text: String) {
    let sidecar = TakeoutSidecar.parse(Array(text.utf8))
    #expect(sidecar.takenTime == nil && sidecar.location == nil)
    #expect(sidecar.problems.map(\.code) == [.invalidValue])
  }

  @Test(arguments: ["", "{", #"{"photoTakenTime": 12}"#, "\u{0}"])
  func brokenJSONIsAProblem(text: String) {
    let sidecar = TakeoutSidecar.parse(Array(text.utf8))
    #expect(sidecar.takenTime == nil)
    #expect(sidecar.problems.map(\.code) == [.malformed])
  }

  @Test func aSidecarLargerThanTheBudgetIsAProblem() {
    let bytes = Array(repeating: UInt8(ascii: " "), count: TakeoutSidecar.maximumSize + 1)
    #expect(!TakeoutSidecar.isTakeoutSidecar(bytes))
    #expect(TakeoutSidecar.parse(bytes).problems.map(\.code) == [.malformed])
  }
}
