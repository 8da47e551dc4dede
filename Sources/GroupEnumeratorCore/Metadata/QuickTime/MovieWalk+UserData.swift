import FoundationEssentials

extension MovieWalk {
  mutating func readUserData(_ userData: BoxHeader, depth: Int) {
    guard var boxes = children(of: userData, depth: depth) else { return }
    while let box = next(&boxes) {
      switch box.type {
      case .userDataLocation where userDataLocation == nil:
        do {
          let item = try UserDataLocationBox(
            parsing: reader.content(of: box, prefix: UserDataLocationBox.maximumLength))
          userDataLocation = ISO6709.location(parsing: item.text)
          if userDataLocation == nil {
            report(
              AssetProblem(
                .invalidValue,
                "The '©xyz' location '\(item.text)' is not an ISO 6709 point; it was ignored."))
          }
        } catch {
          report(error)
        }
      case .locationInformation where locationInformation == nil:
        do {
          let box = try LocationInformationBox(
            parsing: reader.content(of: box, prefix: LocationInformationBox.maximumLength))
          locationInformation = box.location
          if locationInformation == nil {
            report(
              AssetProblem(
                .invalidValue,
                "The 'loci' location \(box.latitude), \(box.longitude) is out of range; "
                  + "it was ignored."))
          }
        } catch {
          report(error)
        }
      case .userDataMake where userDataMake == nil:
        userDataMake = userDataText(box, name: "©mak")
      case .userDataModel where userDataModel == nil:
        userDataModel = userDataText(box, name: "©mod")
      case .userDataDate where userDataDate == nil:
        readUserDataDate(box)
      case .goProMetadata where goProModel == nil:
        readGoProMetadata(box)
      case .metadata: readMetadata(box, depth: depth + 1)
      default: break
      }
    }
  }

  /// The 3GPP `date` item: the text alone, no length or language before it.
  mutating func readUserDataDate(_ box: BoxHeader) {
    let bytes: [UInt8]
    do {
      bytes = try reader.content(of: box, prefix: 64).bytes
    } catch {
      report(error)
      return
    }
    if let text = String(validating: bytes, as: UTF8.self),
      let date = QuickTimeDateText.captureDate(parsing: text)
    {
      userDataDate = date.recorded(as: .threeGPPDate)
    } else {
      let printable = bytes.prefix(40).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
      report(
        AssetProblem(
          .invalidValue,
          "The 'date' item '\(String(decoding: printable, as: UTF8.self))' is not an ISO 8601 "
            + "date; it was ignored."))
    }
  }

  /// A GoPro camera's `udta/GPMF`: GoPro Metadata Format entries (a four-character key,
  /// a type, a structure size and a 16-bit repeat count, the data padded to 4 bytes; type
  /// 0 nests entries), whose `MINF` is the camera's model (`GoPro Max`, `HERO8 Black`).
  /// At most ``GoProMetadata/maximumLength`` bytes are read.
  mutating func readGoProMetadata(_ box: BoxHeader) {
    let bytes: [UInt8]
    do {
      bytes = try reader.content(of: box, prefix: GoProMetadata.maximumLength).bytes
    } catch {
      report(error)
      return
    }
    guard let text = GoProMetadata.model(in: bytes[...]) else { return }
    goProModel = cameraText(String(decoding: text, as: UTF8.self), name: "GPMF 'MINF'")
  }

  /// A `udta` text item (`©mak`, `©mod`: the layout of ``UserDataLocationBox``), cleaned
  /// as ``CameraText`` says; `nil` (reported) when it is not usable text.
  mutating func userDataText(_ box: BoxHeader, name: String) -> String? {
    do {
      let item = try UserDataLocationBox(
        parsing: reader.content(of: box, prefix: UserDataLocationBox.maximumLength))
      return cameraText(item.text, name: "'\(name)'")
    } catch {
      report(error)
      return nil
    }
  }

  /// `text` cleaned as ``CameraText`` says; `nil` (reported when unusable) otherwise.
  mutating func cameraText(_ text: String, name: String) -> String? {
    do {
      return try CameraText.parse(Array(text.utf8))
    } catch {
      report(AssetProblem(.invalidValue, "The \(name) text \(error.reason); it was ignored."))
      return nil
    }
  }
}
