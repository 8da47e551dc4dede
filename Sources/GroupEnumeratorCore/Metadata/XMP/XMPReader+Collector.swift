internal import FoundationEssentials

/// What the scanner keeps of a packet as its elements open and close: the simple
/// properties and the `Container:Directory` items (``XMPReader``).
extension XMLScanner {
  /// An element opens: its namespace declarations apply to its own name and attributes.
  mutating func startElement(_ raw: Range<Int>) {
    var bound = 0
    for attribute in attributes {
      let name = bytes[attribute.name]
      let prefix: String
      if name.elementsEqual("xmlns".utf8) {
        prefix = ""
      } else if name.starts(with: "xmlns:".utf8) {
        prefix = String(decoding: name.dropFirst(6), as: UTF8.self)
        guard prefix != "xml", prefix != "xmlns", !attribute.value.isEmpty else { continue }
      } else {
        continue
      }
      bindings[prefix, default: []].append(String(decoding: values[attribute.value], as: UTF8.self))
      boundPrefixes.append(prefix)
      bound += 1
    }
    boundCounts.append(bound)

    let name = bytes[raw]
    var namespace = bindings[""]?.last ?? ""
    var local = raw
    if let colon = name.firstIndex(of: UInt8(ascii: ":")), colon > raw.lowerBound,
      colon + 1 < raw.upperBound
    {
      let prefix = String(decoding: bytes[raw.lowerBound..<colon], as: UTF8.self)
      // `xml` is bound by XML itself (libxml2 resolved it for elements, not for attributes).
      namespace =
        prefix == "xml" ? "http://www.w3.org/XML/1998/namespace" : bindings[prefix]?.last ?? ""
      local = (colon + 1)..<raw.upperBound
    }
    if !hadChild.isEmpty { hadChild[hadChild.count - 1] = true }
    open.append((raw, namespace, local))
    hadChild.append(false)
    text.removeAll(keepingCapacity: true)
    if namespace == XMPNamespace.container, bytes[local].elementsEqual("Directory".utf8) {
      directoryDepth = open.count
    }

    if directoryDepth != nil, namespace == XMPNamespace.container,
      bytes[local].elementsEqual("Item".utf8), directoryItems.count < XMPReader.maximumItems
    {
      var item: [String: String] = [:]
      for attribute in attributes {
        guard let name = resolve(attribute.name), name.namespace == XMPNamespace.containerItem
        else { continue }
        item[name.name] = String(decoding: values[attribute.value], as: UTF8.self)
      }
      directoryItems.append(item)
      return
    }
    for attribute in attributes {
      guard let name = resolve(attribute.name), properties[name] == nil,
        properties.count < XMPReader.maximumProperties
      else { continue }
      properties[name] = String(decoding: values[attribute.value], as: UTF8.self)
    }
  }

  /// The namespace and local name of an attribute (`exif:GPSLatitude`), split at its first
  /// colon: `nil` for an unprefixed attribute, a namespace declaration, an undeclared
  /// prefix or an RDF attribute.
  func resolve(_ raw: Range<Int>) -> XMPPropertyName? {
    let name = bytes[raw]
    guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return nil }
    let prefix = String(decoding: bytes[raw.lowerBound..<colon], as: UTF8.self)
    guard prefix != "xmlns", let uri = bindings[prefix]?.last, uri != XMPNamespace.rdf else {
      return nil
    }
    return XMPPropertyName(
      namespace: uri, name: String(decoding: bytes[(colon + 1)..<raw.upperBound], as: UTF8.self))
  }

  mutating func endElement() {
    guard let element = open.popLast() else { return }
    let isLeaf = !(hadChild.popLast() ?? true)
    if let depth = directoryDepth {
      if open.count < depth {
        directoryDepth = nil
      } else if isLeaf, element.namespace == XMPNamespace.containerItem,
        let last = directoryItems.indices.last
      {
        // `<Item:Length>123</Item:Length>` inside a `Container:Item`.
        let key = String(decoding: bytes[element.local], as: UTF8.self)
        if directoryItems[last][key] == nil {
          directoryItems[last][key] = String(decoding: text, as: UTF8.self)
        }
      }
    } else if isLeaf, element.namespace != XMPNamespace.rdf, !element.namespace.isEmpty {
      let name = XMPPropertyName(
        namespace: element.namespace,
        name: String(decoding: bytes[element.local], as: UTF8.self))
      if properties[name] == nil, properties.count < XMPReader.maximumProperties {
        properties[name] = String(decoding: text, as: UTF8.self).trimming(\.isSpaceOrNewline)
      }
    }
    text.removeAll(keepingCapacity: true)
    for _ in 0..<(boundCounts.popLast() ?? 0) {
      guard let prefix = boundPrefixes.popLast() else { break }
      _ = bindings[prefix]?.popLast()
      if bindings[prefix]?.isEmpty == true { bindings[prefix] = nil }
    }
  }
}
