internal import FoundationEssentials

/// A small, namespace-aware reader of the XML that XMP packets are written in, and the
/// collector of the simple properties and `Container:Directory` items the engine uses.
///
/// It checks the well-formedness of the XML that XMP uses: elements properly nested;
/// attributes quoted, without `<`, not repeated in a tag, separated by blanks; character
/// references and the five predefined entities (any other entity is undefined: XMP has no
/// DTD); comments without `--`; CDATA sections; processing instructions (not named `xml`
/// past the start); only the characters XML allows; and names as XML 1.0 (fifth edition)
/// allows them, non-ASCII ones included. Element and attribute names are resolved to their
/// namespace URI. It never reads a declaration: ``Markup/scan(_:)`` has refused any `<!`
/// other than a comment or a CDATA section before it runs.
///
/// Where libxml2, which read packets before it, was lenient, it is too: an undeclared
/// prefix, a prefix bound to an empty URI, a rebinding of `xml` or `xmlns` is no error (the
/// name just has no namespace), and once the root element is closed, anything but blanks,
/// comments and processing instructions ends the reading without refusing the packet.
/// The line of a refusal is the one libxml2 gave: where the fault is when libxml2 stopped
/// there (a tag it could not read, content before the root element, an unfinished CDATA
/// section or a last character of text), else the packet's last line.
///
/// - Complexity: O(*n*) for *n* bytes. Every byte is looked at a bounded number of times;
///   nesting is followed on stacks of its own (no recursion, no depth limit, as libxml2
///   had none here); a tag's attributes are compared pairwise up to 8 of them and hashed
///   past that.
enum XMPReader {
  /// What a packet's XML says.
  enum Outcome: Equatable {
    /// The simple properties (first value wins) and the `Container:Directory` items.
    case read(properties: [XMPPropertyName: String], items: [[String: String]])
    /// The packet is not well-formed XML; `line` is the 1-based line to report (0 for a
    /// packet too short to hold an element).
    case notWellFormed(line: Int)
  }

  /// The largest number of properties kept; a packet with more keeps the first ones.
  static let maximumProperties = 4096
  /// The largest number of directory items kept.
  static let maximumItems = 64

  /// Reads `text`: UTF-8 checked by ``XMPPacket/utf8Text(_:)``, its XML declaration
  /// blanked by ``Markup/withoutDeclaration(_:)``.
  static func read(_ text: [UInt8]) -> Outcome {
    // libxml2 was handed the first four bytes on their own; with fewer it never started.
    guard text.count >= 4 else { return .notWellFormed(line: 0) }
    return text.withUnsafeBufferPointer { bytes in
      var scanner = XMLScanner(bytes)
      do {
        try scanner.readDocument()
        return .read(properties: scanner.properties, items: scanner.directoryItems)
      } catch {
        return .notWellFormed(line: scanner.line(of: error))
      }
    }
  }
}

/// Where reading stopped on a fault: at the fault, or (as libxml2 read on past most
/// faults) at the end of the packet.
enum XMLFault: Error {
  case at(Int)
  case atEnd
}

/// The scanner over one packet's bytes and the collector of what it says.
struct XMLScanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  /// Prefix → the namespace URIs bound to it, innermost last (a dictionary, so that
  /// resolving a name costs the same however many namespaces are declared).
  var bindings: [String: [String]] = [:]
  /// The prefixes each open element bound, flattened, with how many per element.
  var boundPrefixes: [String] = []
  var boundCounts: [Int] = []
  /// The open elements: raw name (a range of `bytes`), namespace URI and local name.
  var open: [(raw: Range<Int>, namespace: String, local: Range<Int>)] = []
  /// Whether each open element has had a child (then its text is no simple value).
  var hadChild: [Bool] = []
  /// The tag being read: raw attribute names and values (ranges of `values`).
  var attributes: [(name: Range<Int>, value: Range<Int>)] = []
  var values: [UInt8] = []
  /// The text of the current element: character data and references (not CDATA).
  var text: [UInt8] = []

  var properties: [XMPPropertyName: String] = [:]
  var directoryItems: [[String: String]] = []
  /// The depth of `Container:Directory`, when inside it.
  var directoryDepth: Int?

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The line to report for `error`.
  func line(of error: any Error) -> Int {
    var end = bytes.count
    if case .at(let position) = error as? XMLFault { end = min(position, bytes.count) }
    var line = 1
    for position in 0..<end where bytes[position] == 0x0A { line += 1 }
    return line
  }

  // MARK: The document

  mutating func readDocument() throws(XMLFault) {
    // Before the root element: blanks, comments, processing instructions.
    while true {
      skipSpaces()
      guard index < bytes.count else { throw .atEnd }
      guard bytes[index] == UInt8(ascii: "<") else { throw .at(index) }
      if starts(with: "<?") {
        // A declaration left in place (one ``Markup/withoutDeclaration(_:)`` could not
        // blank) is one libxml2 could not read: it stopped there.
        if index == 0, starts(with: "<?xml"), bytes.count > 5, Self.isSpace(bytes[5]) {
          throw .at(0)
        }
        try readProcessingInstruction()
      } else if starts(with: "<!--") {
        try readComment()
      } else {
        break
      }
    }
    try readStartTag()
    while !open.isEmpty {
      guard index < bytes.count else { throw .atEnd }
      if bytes[index] != UInt8(ascii: "<") {
        try readCharacterData()
      } else if starts(with: "</") {
        try readEndTag()
      } else if starts(with: "<?") {
        try readProcessingInstruction()
      } else if starts(with: "<!--") {
        try readComment()
      } else if starts(with: "<![CDATA[") {
        try readCDATA()
      } else if starts(with: "<!") {
        throw .at(index)
      } else {
        try readStartTag()
      }
    }
    // After it: blanks, comments and processing instructions, which must be well-formed;
    // libxml2 stopped at anything else without refusing the packet.
    while true {
      skipSpaces()
      if starts(with: "<?") {
        try readProcessingInstruction()
      } else if starts(with: "<!--") {
        try readComment()
      } else {
        return
      }
    }
  }

  // MARK: Tags

  mutating func readStartTag() throws(XMLFault) {
    let tagStart = index
    index += 1  // `<`
    guard let name = readName() else { throw .at(tagStart) }
    attributes.removeAll(keepingCapacity: true)
    values.removeAll(keepingCapacity: true)
    var isEmpty = false
    while true {
      let hadSpace = skipSpaces()
      guard index < bytes.count else { throw .atEnd }
      let byte = bytes[index]
      if byte == UInt8(ascii: ">") {
        index += 1
        break
      }
      if byte == UInt8(ascii: "/") {
        guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") else {
          throw .atEnd
        }
        index += 2
        isEmpty = true
        break
      }
      guard let attributeName = readName() else { throw .atEnd }
      guard hadSpace else { throw .atEnd }
      skipSpaces()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw .atEnd }
      index += 1
      skipSpaces()
      let value = try readAttributeValue()
      attributes.append((attributeName, value))
    }
    try checkDuplicateAttributes()
    startElement(name)
    if isEmpty { endElement() }
  }

  mutating func readEndTag() throws(XMLFault) {
    index += 2  // `</`
    guard let name = readName() else { throw .atEnd }
    skipSpaces()
    guard index < bytes.count, bytes[index] == UInt8(ascii: ">"),
      let current = open.last, bytes[name].elementsEqual(bytes[current.raw])
    else { throw .atEnd }
    index += 1
    endElement()
  }

  /// A quoted attribute value into `values`, references decoded, tabs and line breaks
  /// turned into spaces (a CR LF pair into one).
  mutating func readAttributeValue() throws(XMLFault) -> Range<Int> {
    guard index < bytes.count else { throw .atEnd }
    let quote = bytes[index]
    guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw .atEnd }
    index += 1
    let start = values.count
    while true {
      guard index < bytes.count else { throw .atEnd }
      let byte = bytes[index]
      if byte == quote {
        index += 1
        return start..<values.count
      }
      switch byte {
      case UInt8(ascii: "<"):
        throw .at(index)
      case UInt8(ascii: "&"):
        try readReference(into: .values)
      case 0x0D:
        values.append(0x20)
        index += 1
        if index < bytes.count, bytes[index] == 0x0A { index += 1 }
      case 0x09, 0x0A:
        values.append(0x20)
        index += 1
      default:
        // A run of plain ASCII is copied at once.
        var end = index
        while end < bytes.count, bytes[end] >= 0x20, bytes[end] < 0x80, bytes[end] != quote,
          bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "&")
        {
          end += 1
        }
        if end > index {
          values.append(contentsOf: bytes[index..<end])
          index = end
        } else {
          try copyCharacter(into: .values)
        }
      }
    }
  }

  func checkDuplicateAttributes() throws(XMLFault) {
    let count = attributes.count
    guard count > 1 else { return }
    if count <= 8 {
      for first in 0..<(count - 1) {
        for second in (first + 1)..<count
        where bytes[attributes[first].name].elementsEqual(bytes[attributes[second].name]) {
          throw .atEnd
        }
      }
      return
    }
    var seen = Set<String>(minimumCapacity: count)
    for attribute in attributes
    where !seen.insert(String(decoding: bytes[attribute.name], as: UTF8.self)).inserted {
      throw .atEnd
    }
  }

  // MARK: Text, references, comments, CDATA, processing instructions

  mutating func readCharacterData() throws(XMLFault) {
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "<"):
        return
      case UInt8(ascii: "&"):
        try readReference(into: .text)
      case 0x0D:
        text.append(0x0A)
        index += 1
        if index < bytes.count, bytes[index] == 0x0A { index += 1 }
      case UInt8(ascii: "]") where starts(with: "]]>"):
        throw .atEnd
      default:
        // A run of plain ASCII, tabs and line feeds is copied at once.
        var end = index
        while end < bytes.count, Self.isPlainText(bytes[end]) { end += 1 }
        if end > index {
          text.append(contentsOf: bytes[index..<end])
          index = end
        } else {
          try copyCharacter(into: .text)
        }
      }
    }
    // The packet ends inside an element: libxml2 left a last single byte of text unread.
    throw bytes.count - start < 2 ? .at(start) : .atEnd
  }

  /// A character reference or one of the five predefined entities, decoded into `target`.
  mutating func readReference(into target: Buffer) throws(XMLFault) {
    index += 1  // `&`
    if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
      index += 1
      var radix: UInt32 = 10
      if index < bytes.count, bytes[index] == UInt8(ascii: "x") {
        radix = 16
        index += 1
      }
      var value: UInt32 = 0
      var digits = 0
      while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
        guard let digit = Self.digit(bytes[index], radix: radix) else { throw .atEnd }
        // Past U+10FFFF the value is refused anyway; stop it growing.
        value = min(value * radix + digit, 0x11_0000)
        digits += 1
        index += 1
      }
      guard index < bytes.count, digits > 0, Self.isCharacter(value),
        let scalar = Unicode.Scalar(value)
      else { throw .atEnd }
      index += 1
      append(contentsOf: String(Character(scalar)).utf8, to: target)
      return
    }
    guard let name = readName(), index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
      throw .atEnd
    }
    index += 1
    let entity = bytes[name]
    if entity.elementsEqual("lt".utf8) {
      append(UInt8(ascii: "<"), to: target)
    } else if entity.elementsEqual("gt".utf8) {
      append(UInt8(ascii: ">"), to: target)
    } else if entity.elementsEqual("amp".utf8) {
      append(UInt8(ascii: "&"), to: target)
    } else if entity.elementsEqual("apos".utf8) {
      append(UInt8(ascii: "'"), to: target)
    } else if entity.elementsEqual("quot".utf8) {
      append(UInt8(ascii: "\""), to: target)
    } else {
      throw .atEnd
    }
  }

  mutating func readComment() throws(XMLFault) {
    index += 4  // `<!--`
    while index < bytes.count {
      if starts(with: "--") {
        guard index + 2 < bytes.count else { throw .atEnd }
        guard bytes[index + 2] == UInt8(ascii: ">") else { throw .atEnd }
        index += 3
        return
      }
      try skipCharacter()
    }
    throw .atEnd
  }

  mutating func readCDATA() throws(XMLFault) {
    let start = index
    index += 9  // `<![CDATA[`
    while index < bytes.count {
      if starts(with: "]]>") {
        index += 3
        return
      }
      do { try skipCharacter() } catch { throw .at(start) }
    }
    throw .at(start)
  }

  mutating func readProcessingInstruction() throws(XMLFault) {
    index += 2  // `<?`
    guard let target = readName() else { throw .atEnd }
    let name = bytes[target]
    if name.count == 3, name.map({ $0 | 0x20 }).elementsEqual("xml".utf8) { throw .atEnd }
    if !starts(with: "?>") {
      guard skipSpaces() else { throw .atEnd }
    }
    while index < bytes.count {
      if starts(with: "?>") {
        index += 2
        return
      }
      try skipCharacter()
    }
    throw .atEnd
  }
}
