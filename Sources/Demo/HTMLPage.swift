import FoundationEssentials
import GroupEnumeratorCore

/// What the page shows in an asset's picture cell.
enum PagePicture: Sendable, Equatable {
  /// A picture file beside the page: its relative path (`pictures/000001.jpg`) and size.
  case file(path: String, width: Int, height: Int)
  /// No picture, and why (a sentence for people).
  case missing(reason: String)
}

/// The HTML of `--format html`: a page in `strings`' language with a section per group
/// (its heading, then a table), one row per asset with its picture, names, date and its
/// source, size, length, place and problems, in the words and forms of the table format
/// (``TableFormatter``), then the summary.
///
/// Every text from a file or a name goes through ``text(_:)``: control characters are
/// written as `%XX` and invisible format characters (an RTL override U+202E) as
/// `<U+202E>`, as on the terminal (``OutputHygiene/message(_:)``); then `&`, `<`, `>`,
/// `"` and `'` become entities, so a name is text in an element and in an attribute; and
/// each name sits in its own `<bdi>`, so right-to-left text cannot reorder what is around
/// it. The page holds no script; its style is in its head.
struct HTMLPage {
  /// The side of the square the pictures fit in, in pixels (CSS pixels on the page).
  static let side = 80
  /// The largest stored picture the page hands on as it is: the picture cache's `normal`
  /// size.
  static let storedSide = 128

  /// The size a picture of `width` × `height` pixels is shown at: within the square,
  /// proportions kept, never enlarged; each side at least 1.
  static func fitted(width: Int, height: Int) -> (width: Int, height: Int) {
    let longest = max(width, height)
    guard longest > side else { return (width, height) }
    let scale = Double(side) / Double(longest)
    return (
      max(1, Int((Double(width) * scale).rounded())),
      max(1, Int((Double(height) * scale).rounded()))
    )
  }

  let strings: Strings
  private let formatter: TableFormatter
  /// The map link's title, escaped (the same on every row).
  private let mapLinkTitle: String
  /// The group whose section is open.
  private var openGroup: AssetGroup?
  private(set) var assets = 0
  private(set) var videos = 0
  private(set) var withProblems = 0

  init(strings: Strings) {
    self.strings = strings
    formatter = TableFormatter(strings: strings)
    mapLinkTitle = HTMLPage.escaped(strings.mapLink)
  }

  /// From `<!DOCTYPE html>` to the page's first heading and the library's path.
  func head(library: String) -> String {
    let title = HTMLPage.escaped(strings.pageTitle)
    return """
      <!DOCTYPE html>
      <html lang="\(strings.language.rawValue)">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="generator" content="\(HTMLPage.escaped(HelpText.version))">
      <title>\(title)</title>
      <style>
      body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fff; }
      h2 { margin: 1.5em 0 0.4em; font-size: 1.2em; }
      table { border-collapse: collapse; }
      th, td { padding: 4px 10px; text-align: left; vertical-align: middle; }
      th { border-bottom: 2px solid #bbb; font-weight: 600; }
      td { border-bottom: 1px solid #e2e2e2; }
      td.picture { width: \(HTMLPage.side)px; height: \(HTMLPage.side)px; padding: 4px; }
      td.picture img { display: block; margin: auto; }
      .placeholder { display: block; width: \(HTMLPage.side)px; height: \(HTMLPage.side)px;
        box-sizing: border-box; border: 1px dashed #999; background: #eee; }
      td.taken, td.place { white-space: nowrap; }
      td.length, td.size { text-align: right; white-space: nowrap; }
      .why { color: #a40000; }
      .library, .summary { color: #555; }
      </style>
      </head>
      <body>
      <h1>\(title)</h1>
      <p class="library">\(HTMLPage.text(library))</p>

      """
  }

  /// The row of `asset` with `picture`, after the heading and table head of its group
  /// when it is the first of its group (and the end of the group before).
  mutating func row(_ asset: Asset, picture: PagePicture) -> String {
    row(asset, cells: cells(asset, picture: picture))
  }

  /// The row of `asset` whose ``cells(_:picture:)`` are `cells`: as ``row(_:picture:)``.
  mutating func row(_ asset: Asset, cells: String) -> String {
    assets += 1
    if asset.type == .video { videos += 1 }
    if !asset.problems.isEmpty { withProblems += 1 }
    let group = AssetGroup(kind: asset.group, path: asset.groupPath)
    guard openGroup?.kind != group.kind || openGroup?.path != group.path else { return cells }
    var html = openGroup != nil ? HTMLPage.sectionEnd : ""
    openGroup = group
    html += sectionStart(group)
    return html + cells
  }

  /// The table row of `asset` with `picture` (`<tr>` to `</tr>`), which depends on
  /// nothing before it: made on any thread, in any order.
  func cells(_ asset: Asset, picture: PagePicture) -> String {
    let fileNames = TableFormatter.fileNames(of: asset)
    // Appended piece by piece into one buffer: a row is made for every asset.
    var html = ""
    html.reserveCapacity(768)
    html += "<tr class=\"asset\">\n<td class=\"picture\">"
    html += pictureCell(picture, names: fileNames)
    html += "</td>\n<td class=\"name\">"
    for (index, name) in fileNames.enumerated() {
      if index > 0 { html += ", " }
      html += HTMLPage.text(name)
    }
    html += "</td>\n<td class=\"taken\">"
    html += HTMLPage.escaped(formatter.takenDate(asset.creationDate))
    html += "</td>\n<td class=\"source\">"
    html += HTMLPage.escaped(asset.creationDate.map { strings.dateSource($0.source) } ?? "-")
    html += "</td>\n<td class=\"size\">"
    html += HTMLPage.escaped(formatter.size(width: asset.pixelWidth, height: asset.pixelHeight))
    html += "</td>\n<td class=\"length\">"
    html += HTMLPage.escaped(asset.type == .photo ? "-" : formatter.length(asset.duration))
    html += "</td>\n<td class=\"place\">"
    place(asset.location, into: &html)
    html += "</td>\n<td class=\"problems\">"
    html += problems(asset, picture)
    html += "</td>\n</tr>\n"
    return html
  }

  /// The end of the last section, the summary and a line per folder that could not be
  /// read, and the end of the page.
  func end(folderProblems: [(path: LibraryPath, problem: AssetProblem)]) -> String {
    var html = openGroup != nil ? HTMLPage.sectionEnd : ""
    let summary = strings.summary(
      photos: assets - videos, videos: videos, withProblems: withProblems)
    html += "<p class=\"summary\">\(HTMLPage.escaped(summary))</p>\n"
    for (path, problem) in folderProblems {
      let line = strings.folderProblem(path.escaped, problem.description)
      html += "<p class=\"why\">\(HTMLPage.text(line))</p>\n"
    }
    return html + "</body>\n</html>\n"
  }

  private static let sectionEnd = "</tbody>\n</table>\n</section>\n"

  private func sectionStart(_ group: AssetGroup) -> String {
    let columns = strings.assetColumns
    let headers = [strings.pictureColumn] + [0, 2, 3, 4, 5, 6, 7].map { columns[$0] }
    let cells = headers.map { "<th>\(HTMLPage.escaped($0))</th>" }.joined()
    return "<section>\n<h2>\(HTMLPage.text(group.localizedName(in: strings.language)))</h2>\n"
      + "<table>\n<thead>\n<tr>\(cells)</tr>\n</thead>\n<tbody>\n"
  }

  private func pictureCell(_ picture: PagePicture, names fileNames: [String]) -> String {
    switch picture {
    case .file(let path, let width, let height):
      let alt = HTMLPage.escaped(
        OutputHygiene.message(fileNames.joined(separator: ", ")))
      return "<img src=\"\(HTMLPage.escaped(path))\" width=\"\(width)\" height=\"\(height)\""
        + " alt=\"\(alt)\" loading=\"lazy\">"
    case .missing(let reason):
      return "<span class=\"placeholder\" role=\"img\""
        + " aria-label=\"\(HTMLPage.escaped(strings.noPicture))\""
        + " title=\"\(HTMLPage.escaped(OutputHygiene.message(reason)))\"></span>"
    }
  }

  /// The coordinates as the table writes them, linked to OpenStreetMap's map of the place
  /// (the URL is made of the numbers only); `-` without a location.
  private func place(_ location: Location?, into html: inout String) {
    guard let location, let numbers = HTMLPage.mapCoordinates(location) else {
      html += "-"
      return
    }
    let (lat, lon) = numbers
    // The numbers are digits, `.` and `-`, which need no entity: the URL's one `&` is
    // written as `&amp;` here, as ``escaped(_:)`` would write it. The text is the
    // table's (``TableFormatter/gps(_:)``), made of the same two numbers.
    html += "<a href=\"https://www.openstreetmap.org/?mlat="
    html += lat
    html += "&amp;mlon="
    html += lon
    html += "#map=16/"
    html += lat
    html += "/"
    html += lon
    html += "\" title=\""
    html += mapLinkTitle
    html += "\" rel=\"noreferrer\">"
    html += lat
    html += ", "
    html += lon
    html += "</a>"
  }

  /// `https://www.openstreetmap.org/?mlat=35.68950&mlon=139.69171#map=16/35.68950/139.69171`,
  /// or `nil` for a location out of range (``Location`` never holds one).
  static func mapURL(_ location: Location) -> String? {
    mapCoordinates(location).map { mapURL($0.latitude, $0.longitude) }
  }

  /// The latitude and longitude with five decimals (``DecimalText/fiveDecimals(_:)``), or
  /// `nil` for a location out of range.
  private static func mapCoordinates(_ location: Location) -> (
    latitude: String, longitude: String
  )? {
    let latitude = location.latitude
    let longitude = location.longitude
    guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
    else { return nil }
    return (DecimalText.fiveDecimals(latitude), DecimalText.fiveDecimals(longitude))
  }

  private static func mapURL(_ lat: String, _ lon: String) -> String {
    "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=16/\(lat)/\(lon)"
  }

  /// The problems cell: the table's codes (`truncated +1`, or `-`), and why there is no
  /// picture when there is none.
  private func problems(_ asset: Asset, _ picture: PagePicture) -> String {
    let codes = asset.problems.isEmpty ? nil : HTMLPage.escaped(formatter.problems(asset.problems))
    guard case .missing(let reason) = picture else { return codes ?? "-" }
    let why = "<span class=\"why\">\(HTMLPage.text(reason))</span>"
    return codes.map { $0 + "<br>" + why } ?? why
  }

  /// Text from a file or a name as page text: made visible (``OutputHygiene/message(_:)``),
  /// escaped, and isolated in a `<bdi>`.
  static func text(_ text: String) -> String {
    "<bdi>" + escaped(OutputHygiene.message(text)) + "</bdi>"
  }

  /// `text` with `&`, `<`, `>`, `"` and `'` as entities: safe in an element and in a
  /// quoted attribute.
  static func escaped(_ text: String) -> String {
    guard
      text.utf8.contains(where: {
        $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27
      })
    else {
      return text
    }
    // The five are ASCII, which in UTF-8 is never part of another character: replaced
    // byte by byte.
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 16)
    for byte in text.utf8 {
      switch byte {
      case 0x26: bytes += "&amp;".utf8
      case 0x3C: bytes += "&lt;".utf8
      case 0x3E: bytes += "&gt;".utf8
      case 0x22: bytes += "&quot;".utf8
      case 0x27: bytes += "&#39;".utf8
      default: bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
