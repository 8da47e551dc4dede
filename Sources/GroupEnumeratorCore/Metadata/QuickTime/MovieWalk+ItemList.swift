import FoundationEssentials

extension MovieWalk {
  /// Reads an Apple `mdta` metadata box: `hdlr`, then `keys`, then `ilst`.
  ///
  /// QuickTime's `meta` is a plain container while the ISO base media file format makes
  /// it a full box; which one this is shows in where the `hdlr` child starts.
  mutating func readMetadata(_ meta: BoxHeader, depth: Int) {
    let start: [UInt8]
    do {
      start = try reader.read(at: meta.contentRange.lowerBound, length: min(12, meta.contentLength))
    } catch {
      report(error)
      return
    }
    let handlerBytes = FourCharacterCode.handler.bytes
    let isFullBox =
      start.count >= 12 && Array(start[4..<8]) != handlerBytes
      && (Array(start[8..<12]) == handlerBytes || start[0..<4].allSatisfy { $0 == 0 })
    guard var boxes = children(of: meta, depth: depth, contentOffset: isFullBox ? 4 : 0) else {
      return
    }
    var handler: FourCharacterCode?
    var keysBox: BoxHeader?
    var itemList: BoxHeader?
    while let box = next(&boxes) {
      switch box.type {
      case .handler where handler == nil:
        do {
          handler = try HandlerBox(parsing: reader.content(of: box, prefix: 64)).handlerType
        } catch {
          report(error)
        }
      case .metadataKeys where keysBox == nil: keysBox = box
      case .metadataItemList where itemList == nil: itemList = box
      default: break
      }
    }
    if handler == .itunesMetadataHandler, let itemList {
      readNamedItems(itemList, depth: depth + 1)
      return
    }
    guard !hasKeyedMetadata, handler == .metadataHandler, let keysBox, let itemList else {
      return
    }
    hasKeyedMetadata = true
    let keys: MetadataKeysBox
    do {
      keys = try MetadataKeysBox(
        parsing: reader.content(of: keysBox, limit: MetadataKeysBox.maximumLength))
    } catch {
      report(error)
      return
    }
    guard var items = children(of: itemList, depth: depth + 1) else { return }
    while let item = next(&items) {
      let index = MetadataItemListBox.keyIndex(of: item)
      guard let name = keys.key(forIndex: index),
        let key = MetadataItemListBox.Key(rawValue: name)
      else { continue }
      readItem(item, key: key, depth: depth + 2)
    }
  }

  /// Reads the items of an iTunes-style `ilst` (handler `mdir`), whose items are named by
  /// their own box type: only `©xyz`, the location, is kept.
  mutating func readNamedItems(_ itemList: BoxHeader, depth: Int) {
    guard itemListLocation == nil, var items = children(of: itemList, depth: depth) else {
      return
    }
    while let item = next(&items) {
      guard item.type == .userDataLocation, let text = firstText(of: item, depth: depth + 1)
      else { continue }
      itemListLocation = ISO6709.location(parsing: text)
      if itemListLocation == nil {
        report(
          AssetProblem(
            .invalidValue,
            "The 'ilst' '©xyz' location '\(text)' is not an ISO 6709 point; it was ignored."))
      }
      return
    }
  }

  /// The text of an item's first `data` box, or `nil` (reported) when it is not text.
  mutating func firstText(of item: BoxHeader, depth: Int) -> String? {
    guard var boxes = children(of: item, depth: depth) else { return nil }
    while let box = next(&boxes) {
      guard box.type == .data else { continue }
      do {
        let value = try MetadataDataBox(
          parsing: reader.content(of: box, limit: MetadataDataBox.maximumLength + 8))
        if let text = value.text { return text }
        report(
          AssetProblem(
            .invalidValue,
            "The item at offset \(box.offset) is not text (type \(value.typeIndicator)); "
              + "it was ignored."))
      } catch {
        report(error)
      }
      return nil
    }
    return nil
  }

  mutating func readItem(_ item: BoxHeader, key: MetadataItemListBox.Key, depth: Int) {
    guard var boxes = children(of: item, depth: depth) else { return }
    while let box = next(&boxes) {
      guard box.type == .data else { continue }
      let value: MetadataDataBox
      do {
        value = try MetadataDataBox(
          parsing: reader.content(of: box, limit: MetadataDataBox.maximumLength + 8))
      } catch {
        report(error)
        return
      }
      guard let text = value.text else {
        report(
          AssetProblem(
            .invalidValue,
            "The '\(key.rawValue)' item at offset \(box.offset) is not text (type "
              + "\(value.typeIndicator)); it was ignored."))
        return
      }
      apply(text, to: key)
      return
    }
  }

  mutating func apply(_ text: String, to key: MetadataItemListBox.Key) {
    switch key {
    case .creationDate:
      if let date = QuickTimeDateText.captureDate(parsing: text) {
        metadata.quickTimeCreationDate = date
      } else {
        report(
          AssetProblem(
            .invalidValue, "The creation date '\(text)' is not an ISO 8601 date; it was ignored."))
      }
    case .location:
      if let location = ISO6709.location(parsing: text) {
        keyedLocation = location
      } else {
        report(
          AssetProblem(
            .invalidValue, "The location '\(text)' is not an ISO 6709 point; it was ignored."))
      }
    case .make:
      if let make = cameraText(text, name: "'\(key.rawValue)'") { metadata.make = make }
    case .model:
      if let model = cameraText(text, name: "'\(key.rawValue)'") { metadata.model = model }
    case .contentIdentifier:
      let identifier = text.trimming { $0.isSpaceOrNewline || $0.isControlOrFormat }
      if identifier.isEmpty {
        report(AssetProblem(.invalidValue, "The content identifier is empty; it was ignored."))
      } else {
        metadata.contentIdentifier = identifier
      }
    }
  }
}
