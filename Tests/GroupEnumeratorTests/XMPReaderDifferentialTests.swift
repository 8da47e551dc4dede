import Foundation
import FoundationXML
import GroupEnumerator
import TestSupport
import Testing

@testable import GroupEnumeratorCore

/// ``XMPReader`` against the collector it replaced (Foundation's `XMLParser`, libxml2
/// underneath, kept here only), on every XMP packet in the repository's fixtures and on
/// packets made from them: truncated, with bytes changed, with markup inserted.
///
/// Both must agree on every packet: the same properties and directory items, the same
/// refusals, and the same line for the fixtures' and the generated packets' refusals. One
/// difference is deliberate: `XMLParser` accepted a packet in which libxml2 had reported a
/// well-formedness error when its last error was "extra content at the end of the
/// document" (libxml2 recovers from most errors and reads on); the reader refuses it.
@Suite struct XMPReaderDifferentialTests {
  /// Every packet in `Fixtures` and in the test resources, found by its delimiters.
  static let packets: [[UInt8]] = {
    var found: [[UInt8]] = []
    let roots = [Sample.fixtures.url, Sample.resources.url]
    for root in roots {
      guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
      else { continue }
      for case let url as URL in files {
        guard let data = try? Data(contentsOf: url), data.count < 64 << 20 else { continue }
        let bytes = [UInt8](data)
        if url.pathExtension.lowercased() == "xmp" {
          found.append(bytes)
          continue
        }
        var start = 0
        while let open = firstIndex(of: "<x:xmpmeta", in: bytes, from: start) {
          let end = firstIndex(of: "</x:xmpmeta>", in: bytes, from: open).map { $0 + 12 }
          found.append(Array(bytes[open..<(end ?? min(bytes.count, open + 65536))]))
          start = open + 1
        }
      }
    }
    return found
  }()

  @Test func theFixturesHoldXMPPackets() {
    #expect(Self.packets.count >= 20)
  }

  @Test func everyFixturePacketReadsAsBefore() async {
    var refused = 0
    for (number, packet) in Self.packets.enumerated() {
      // Long under a sanitizer: other tests' tasks get the thread between packets.
      await Task.yield()
      guard let plain = usable(packet) else { continue }
      let (old, _) = oldOutcome(plain)
      #expect(XMPReader.read(plain) == old, "fixture packet \(number)")
      if case .notWellFormed = old { refused += 1 }
    }
    #expect(refused < Self.packets.count)
  }

  @Test(arguments: [
    // Namespaces: by URI, not prefix; undeclared prefixes, empty URIs, `xml`, defaults.
    #"<r xmlns:e="http://ns.adobe.com/exif/1.0/" e:A="1"><e:B> 2 </e:B></r>"#,
    #"<r xmlns:q="http://ns.adobe.com/exif/1.0/"><q:A>x</q:A><u:B>y</u:B></r>"#,
    #"<r xmlns:q="" q:A="1"><q:B>2</q:B></r>"#,
    #"<r xmlns:xml="u" xml:lang="x" xmlns:xmlns="v"><b xmlns="http://ns.adobe.com/exif/1.0/">5</b></r>"#,
    #"<r xmlns:p="u"><p:a xmlns:p="v">1</p:a><p:b>2</p:b></r>"#,
    #"<p:a:b xmlns:p="u" p:c:d="1">2</p:a:b>"#,
    #"<:a xmlns="u"/>"#,
    #"<r xmlns:p="u"><xml:b>1</xml:b><p:c xml:lang="x">2</p:c></r>"#,
    // References, normalization, CDATA, comments, processing instructions.
    "<r xmlns:p=\"u\" p:a=\"&lt;&gt;&amp;&apos;&quot;&#65;&#x20AC;\t\r\n\r x\"><p:b>&#13;a\r\nb\rc<!-- c -->d<![CDATA[e]]>f<?pi x?></p:b></r>",
    "<r xmlns:p=\"u\"><p:b>\u{A0} x \u{2003}</p:b><p:c><![CDATA[only]]></p:c><p:d/></r>",
    // Names beyond ASCII.
    "<é xmlns:ß=\"u\" ß:名前=\"1\"><ß:x·y‿z>2</ß:x·y‿z></é>",
    // Directories, nested and with items written both ways.
    """
    <r xmlns:C="http://ns.google.com/photos/1.0/container/" \
    xmlns:I="http://ns.google.com/photos/1.0/container/item/"><C:Directory><s><C:Item \
    I:Mime="image/jpeg" I:Length="0"/><C:Item><I:Mime>video/mp4</I:Mime><I:Length> 9 \
    </I:Length><I:Length>8</I:Length></C:Item><C:Directory><C:Item I:A="1"/></C:Directory>\
    <C:Item I:B="2"/></s></C:Directory><C:Item I:C="3"/></r>
    """,
    // After the root element.
    "<r/>\n<!-- c --><?pi x?>  ", "<r/>x", "<r/><s/>", "<r/>\n&x;",
    // Refusals: truncation, tags, attributes, references, characters, markup.
    "<r>\n<s>\n", "\n\n<r>\n<s>\n", "<r>\n<![CDATA[x\n\n", "<r>\n<!--x\n\n", "<r>\n<?pi x\n\n",
    "<r\n\n", "<r a=\"x\n\n", "\n\n\n\n\n", "<r",
    "<r a=\"1\" a=\"2\"/>\n\n\n", "<r>\n<s a=\"<\"/>\n\n</r>\n", "<r a=x>\n\n</r>",
    "<r a=\"1\"b=\"2\"/>\n\n", "<r>&foo;\n\n</r>\n", "<r>\u{1}\n\n</r>\n", "<r>&#0;</r>\n\n",
    "<r>&#xD800;</r>\n\n", "<r>&#x110000;</r>\n\n", "<r>\u{FFFE}</r>\n\n", "<r>]]></r>\n\n",
    "<r>\n<s>\n</t>\n</r>\n\n", "<r><!-- a -- b --></r>\n\n", "<r><?xml x?></r>\n\n",
    "<r>\n</r>\n<!--x", "<r/>\n<?pi\n\n", "x\n\n<r/>", "<1r/>\n\n", "<r \\ a=\"1\"/>\n\n",
    "<?xml <?xpacket\nx\n\n",
  ])
  func aHandWrittenPacketReadsAsBefore(text: String) {
    let plain = Markup.withoutDeclaration(Array(text.utf8))
    #expect(XMPReader.read(plain) == oldOutcome(plain).outcome)
  }

  /// `XMLParser` crashed the process on this packet (a `NULL` handed to `strlen`), so it is
  /// not compared: a processing instruction without data is well-formed and skipped.
  @Test func aProcessingInstructionWithoutDataIsRead() {
    let text = #"<?pi?><r xmlns:e="http://ns.adobe.com/exif/1.0/" e:A="1"><?pi?></r><?pi?>"#
    let name = XMPPropertyName.exif("A")
    #expect(XMPReader.read(Array(text.utf8)) == .read(properties: [name: "1"], items: []))
  }

  @Test func deepNestingIsReadWithoutRecursion() {
    let depth = 200_000
    let text = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
    #expect(XMPReader.read(Array(text.utf8)) == .read(properties: [:], items: []))
  }

  @Test func truncatedPacketsAreRefusedOnTheSameLine() async {
    var generator = SplitMix(seed: 23)
    var refusals = 0
    for (number, packet) in Self.packets.enumerated() {
      await Task.yield()
      for _ in 0..<8 {
        let cut = Array(packet[..<Int.random(in: 0...packet.count, using: &generator)])
        guard let plain = usable(cut) else { continue }
        let (old, _) = oldOutcome(plain)
        #expect(XMPReader.read(plain) == old, "packet \(number) cut to \(cut.count) bytes")
        if case .notWellFormed = old { refusals += 1 }
      }
    }
    #expect(refusals > 100)
  }

  /// Bytes changed and markup inserted: the same properties, items and refusals; a
  /// refusal's line may differ where libxml2 recovered from an error and stopped later.
  @Test func mutatedPacketsAreReadAndRefusedAsBefore() async {
    let snippets = [
      "&amp;", "&lt;", "&#65;", "&#x20AC;", "&#0;", "&#xD800;", "&foo;", "&", "<", ">", "\"",
      "'", "<!-- c -->", "<!-- a -- b -->", "<![CDATA[x<y]]>", "]]>", "<?pi data?>",
      "<?xml x?>", "</a>", "<b>", "</b>", "<q:b>", "<é>", "</é>", " q:x=\"1\"",
      " xmlns:q=\"u\"", " xmlns:q=\"\"", " a=\"1\" a=\"2\"", " a=\"1\"", "\r\n", "\r", "\n",
      "\t", "\u{1}", "\u{FFFE}", "\u{85}", "\u{A0}", " ", "x", "=", "/>", "<1>", "<:a>",
      "<a:b:c>", "<Item:Length>5</Item:Length>",
      "<Container:Directory><rdf:Seq><rdf:li><Container:Item Item:Mime=\"video/mp4\" "
        + "Item:Length=\"9\"/></rdf:li></rdf:Seq></Container:Directory>",
      "<exif:GPSLatitude>1,2N</exif:GPSLatitude>",
      " exif:DateTimeOriginal=\"2020-01-01T00:00:00\"", "‿", "·", "<rdf:li>x</rdf:li>",
    ].map { Array($0.utf8) }
    let markup = Array("<>/=\"' :&;!?-[]".utf8)
    var generator = SplitMix(seed: 1)
    var compared = 0
    var sameLine = 0
    var refusedByBoth = 0
    for (number, packet) in Self.packets.enumerated() {
      await Task.yield()
      for round in 0..<12 {
        var bytes = packet
        for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
          let at = Int.random(in: 0..<bytes.count, using: &generator)
          switch Int.random(in: 0..<4, using: &generator) {
          case 0: bytes[at] = UInt8.random(in: 0x20...0x7E, using: &generator)
          case 1: bytes.insert(contentsOf: snippets.randomElement(using: &generator)!, at: at)
          case 2: bytes.remove(at: at)
          default: bytes[at] = markup.randomElement(using: &generator)!
          }
        }
        guard let plain = usable(bytes) else { continue }
        let (old, errors) = oldOutcome(plain)
        let new = XMPReader.read(plain)
        compared += 1
        switch (old, new) {
        case (.notWellFormed(let oldLine), .notWellFormed(let newLine)):
          refusedByBoth += 1
          if oldLine == newLine { sameLine += 1 }
        case (.read, .notWellFormed):
          // Only where libxml2 had reported a well-formedness error.
          #expect(!errors.allSatisfy(Self.isTolerated), "packet \(number) round \(round)")
        default:
          #expect(new == old, "packet \(number) round \(round)")
        }
      }
    }
    #expect(compared > 200)
    #expect(sameLine * 10 >= refusedByBoth * 8, "\(sameLine) of \(refusedByBoth) on one line")
  }

  /// libxml2's codes that are not well-formedness errors: "extra content at the end of the
  /// document" (5), namespace warnings (100…) and namespace errors (200…).
  static func isTolerated(_ code: Int) -> Bool { code == 5 || (100..<300).contains(code) }
}

/// What ``XMPPacket/parse(_:)`` does before reading: the checked UTF-8 text, declaration
/// blanked, that ``Markup/scan(_:)`` lets through; `nil` for a packet refused before.
private func usable(_ bytes: [UInt8]) -> [UInt8]? {
  guard let text = XMPPacket.utf8Text(bytes) else { return nil }
  let plain = Markup.withoutDeclaration(text)
  return Markup.scan(plain) == .usable ? plain : nil
}

private func firstIndex(of literal: String, in bytes: [UInt8], from start: Int) -> Int? {
  let needle = Array(literal.utf8)
  guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
  return (start...(bytes.count - needle.count)).first {
    bytes[$0] == needle[0] && bytes[$0..<($0 + needle.count)].elementsEqual(needle)
  }
}

/// A small deterministic generator, so that every run makes the same packets.
private struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// The outcome of the collector that ``XMPReader`` replaced, and the codes of the errors
/// libxml2 reported on the way.
private func oldOutcome(_ plain: [UInt8]) -> (outcome: XMPReader.Outcome, errors: [Int]) {
  let collector = OldXMPPropertyCollector()
  let parser = XMLParser(data: Data(plain))
  parser.shouldProcessNamespaces = true
  parser.shouldReportNamespacePrefixes = true
  parser.shouldResolveExternalEntities = false
  parser.delegate = collector
  let parsed = parser.parse()
  if !parsed || !collector.isComplete {
    return (.notWellFormed(line: parser.lineNumber), collector.errors)
  }
  return (
    .read(properties: collector.properties, items: collector.directoryItems), collector.errors
  )
}

/// The collector as it was, on Foundation's `XMLParser`.
private final class OldXMPPropertyCollector: NSObject, XMLParserDelegate {
  var properties: [XMPPropertyName: String] = [:]
  var directoryItems: [[String: String]] = []
  var errors: [Int] = []
  var isComplete: Bool { sawElement && path.isEmpty }
  private var sawElement = false
  private var bindings: [String: [String]] = [:]
  private var path: [XMPPropertyName] = []
  private var text = ""
  private var hadChild: [Bool] = []
  private var directoryDepth: Int?

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
    errors.append((parseError as NSError).code)
  }

  func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String)
  {
    bindings[prefix, default: []].append(namespaceURI)
  }

  func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
    _ = bindings[prefix]?.popLast()
    if bindings[prefix]?.isEmpty == true { bindings[prefix] = nil }
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
  ) {
    if !hadChild.isEmpty { hadChild[hadChild.count - 1] = true }
    let element = XMPPropertyName(namespace: namespaceURI ?? "", name: elementName)
    sawElement = true
    path.append(element)
    hadChild.append(false)
    text = ""
    if element == XMPPropertyName(namespace: XMPNamespace.container, name: "Directory") {
      directoryDepth = path.count
    }
    var attributes: [XMPPropertyName: String] = [:]
    for (qualified, value) in attributeDict {
      guard let name = resolve(qualified), name.namespace != XMPNamespace.rdf else { continue }
      attributes[name] = value
    }
    if directoryDepth != nil,
      element == XMPPropertyName(namespace: XMPNamespace.container, name: "Item"),
      directoryItems.count < XMPReader.maximumItems
    {
      var item: [String: String] = [:]
      for (name, value) in attributes where name.namespace == XMPNamespace.containerItem {
        item[name.name] = value
      }
      directoryItems.append(item)
      return
    }
    for (name, value) in attributes { keep(name, value) }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    if text.utf8.count < XMPPacket.maximumSize { text += string }
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName qName: String?
  ) {
    guard let element = path.popLast() else { return }
    let isLeaf = !(hadChild.popLast() ?? true)
    if let depth = directoryDepth {
      if path.count < depth {
        directoryDepth = nil
      } else if isLeaf, element.namespace == XMPNamespace.containerItem,
        let last = directoryItems.indices.last
      {
        directoryItems[last][element.name] = directoryItems[last][element.name] ?? text
      }
    } else if isLeaf, element.namespace != XMPNamespace.rdf, !element.namespace.isEmpty {
      keep(element, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    text = ""
  }

  private func keep(_ name: XMPPropertyName, _ value: String) {
    guard properties[name] == nil, properties.count < XMPReader.maximumProperties else { return }
    properties[name] = value
  }

  private func resolve(_ qualified: String) -> XMPPropertyName? {
    guard let colon = qualified.firstIndex(of: ":") else { return nil }
    let prefix = String(qualified[..<colon])
    let local = String(qualified[qualified.index(after: colon)...])
    guard prefix != "xmlns", let uri = bindings[prefix]?.last else { return nil }
    return XMPPropertyName(namespace: uri, name: local)
  }
}
