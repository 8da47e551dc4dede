import GroupEnumeratorCore

/// The Demo's own text for people, in English, Simplified Chinese and Japanese.
///
/// Usage errors and `--help` stay in English, as swift-argument-parser has them; the
/// table, the progress bar and library errors follow `--lang`.
struct Strings: Sendable {
  /// The language of the text.
  var language: Language

  /// The progress bar's label: `Loading photos (42%)`.
  func loading(percent: Int) -> String {
    switch language {
    case .english: "Loading photos (\(percent)%)"
    case .simplifiedChinese: "载入照片中(\(percent)%)..."
    case .japanese: "写真を読み込み中(\(percent)%)..."
    }
  }

  /// The progress bar's label while `--format html` draws the pictures:
  /// `Drawing pictures (42%)`.
  func drawing(percent: Int) -> String {
    switch language {
    case .english: "Drawing pictures (\(percent)%)"
    case .simplifiedChinese: "生成缩略图中(\(percent)%)..."
    case .japanese: "サムネイルを作成中(\(percent)%)..."
    }
  }

  /// The page's title and first heading (`--format html`).
  var pageTitle: String {
    switch language {
    case .english: "Photos and videos"
    case .simplifiedChinese: "照片和视频"
    case .japanese: "写真とビデオ"
    }
  }

  /// The header of the page's picture column.
  var pictureColumn: String {
    switch language {
    case .english: "Picture"
    case .simplifiedChinese: "缩略图"
    case .japanese: "サムネイル"
    }
  }

  /// What the page's placeholder says when an asset has no picture.
  var noPicture: String {
    switch language {
    case .english: "No picture"
    case .simplifiedChinese: "无缩略图"
    case .japanese: "サムネイルなし"
    }
  }

  /// The title of a place link on the page: where a map shows the asset's location.
  var mapLink: String {
    switch language {
    case .english: "Show on OpenStreetMap"
    case .simplifiedChinese: "在 OpenStreetMap 上查看"
    case .japanese: "OpenStreetMap で表示"
    }
  }

  /// The message when the page cannot be written to the folder `path`.
  func cannotWritePage(_ path: String, reason: String) -> String {
    switch language {
    case .english: "Cannot write the page to '\(path)': \(reason)."
    case .simplifiedChinese: "无法将网页写入“\(path)”：\(reason)。"
    case .japanese: "ページを「\(path)」に書き込めません：\(reason)。"
    }
  }

  /// The asset table's column headers: name, group, taken date, the date's source,
  /// pixel dimensions, length, GPS, problems.
  var assetColumns: [String] {
    switch language {
    case .english:
      ["Name", "Group", "Taken", "Source", "Dimensions", "Length", "GPS", "Problems"]
    case .simplifiedChinese:
      ["文件名", "相簿", "拍摄时间", "时间来源", "尺寸", "时长", "GPS", "问题"]
    case .japanese:
      ["ファイル名", "アルバム", "撮影日時", "日時の出典", "サイズ", "長さ", "GPS", "問題"]
    }
  }

  /// A short name for where a capture date came from, for the table's Source column.
  func dateSource(_ source: CaptureDate.Source) -> String {
    switch (source, language) {
    case (.exifDateTimeOriginal, .english): "EXIF original"
    case (.exifDateTimeOriginal, .simplifiedChinese): "EXIF 原始时间"
    case (.exifDateTimeOriginal, .japanese): "EXIF 撮影日時"
    case (.exifDateTimeDigitized, .english): "EXIF digitized"
    case (.exifDateTimeDigitized, .simplifiedChinese): "EXIF 数字化时间"
    case (.exifDateTimeDigitized, .japanese): "EXIF デジタル化日時"
    case (.exifDateTime, .english): "EXIF DateTime"
    case (.exifDateTime, .simplifiedChinese): "EXIF 修改时间"
    case (.exifDateTime, .japanese): "EXIF 更新日時"
    case (.xmpEXIFDateTimeOriginal, _): "XMP original"
    case (.xmpDateTimeOriginal, _): "XMP DateTimeOriginal"
    case (.xmpPhotoshopDateCreated, _): "XMP created"
    case (.xmpCreateDate, _): "XMP create date"
    case (.xmpPhotoshopDateCreatedDateOnly, _): "XMP created (day)"
    case (.xmpCreateDateDateOnly, _): "XMP create (day)"
    case (.canonRawDateTimeOriginal, _): "CRW original"
    case (.h264DateTimeOriginal, _): "AVCHD"
    case (.sidecarXMPEXIFDateTimeOriginal, _): "sidecar XMP original"
    case (.sidecarXMPDateTimeOriginal, _): "sidecar XMP DTO"
    case (.sidecarXMPPhotoshopDateCreated, _): "sidecar XMP created"
    case (.sidecarXMPCreateDate, _): "sidecar XMP create"
    case (.sidecarXMPPhotoshopDateCreatedDateOnly, _): "sidecar created day"
    case (.sidecarXMPCreateDateDateOnly, _): "sidecar create day"
    case (.takeoutPhotoTakenTime, _): "Takeout (UTC)"
    case (.aviIDIT, _): "AVI IDIT"
    case (.aviICRD, _): "AVI ICRD"
    case (.aviICRDDateOnly, _): "AVI ICRD (day)"
    case (.quickTimeCreationDate, _): "QuickTime"
    case (.threeGPPDate, _): "3GPP date"
    case (.quickTimeMovieHeader, .english): "movie header (UTC)"
    case (.quickTimeMovieHeader, .simplifiedChinese): "影片头 (UTC)"
    case (.quickTimeMovieHeader, .japanese): "ムービーヘッダ (UTC)"
    case (.fileModificationTime, .english): "file time (UTC)"
    case (.fileModificationTime, .simplifiedChinese): "文件时间 (UTC)"
    case (.fileModificationTime, .japanese): "ファイル日時 (UTC)"
    }
  }

  /// The group table's column headers: name, type, photos, Live Photos, videos, URL.
  var groupColumns: [String] {
    switch language {
    case .english: ["Name", "Type", "Photos", "Live Photos", "Videos", "URL"]
    case .simplifiedChinese: ["名称", "类型", "照片", "实况照片", "视频", "URL"]
    case .japanese: ["名前", "種類", "写真", "Live Photos", "ビデオ", "URL"]
    }
  }

  /// Shown for a capture date that is not known.
  var unknownDate: String {
    switch language {
    case .english: "(unknown)"
    case .simplifiedChinese: "(未知)"
    case .japanese: "(不明)"
    }
  }

  /// `12 assets (10 photos, 2 videos), 1 with problems`; Live Photos count as photos and
  /// the problem count is left out when it is zero.
  func summary(photos: Int, videos: Int, withProblems: Int) -> String {
    let total = photos + videos
    switch language {
    case .english:
      var text = "\(total) \(total == 1 ? "asset" : "assets") (\(photos) "
      text += "\(photos == 1 ? "photo" : "photos"), \(videos) \(videos == 1 ? "video" : "videos"))"
      if withProblems > 0 { text += ", \(withProblems) with problems" }
      return text
    case .simplifiedChinese:
      var text = "共 \(total) 项(\(photos) 张照片，\(videos) 个视频)"
      if withProblems > 0 { text += "，\(withProblems) 项有问题" }
      return text
    case .japanese:
      var text = "\(total) 件(写真 \(photos) 件、ビデオ \(videos) 件)"
      if withProblems > 0 { text += "、問題あり \(withProblems) 件" }
      return text
    }
  }

  /// The table's last count: `3 other files not listed (--include-other)`, or with
  /// `--include-other` `3 other files listed (not photos or videos)`.
  func otherFiles(_ count: Int, listed: Bool) -> String {
    switch (language, listed) {
    case (.english, false):
      "\(count) other \(count == 1 ? "file" : "files") not listed (--include-other)"
    case (.english, true):
      "\(count) other \(count == 1 ? "file" : "files") listed (not photos or videos)"
    case (.simplifiedChinese, false): "另有 \(count) 个其他文件未列出(--include-other)"
    case (.simplifiedChinese, true): "已列出 \(count) 个其他文件(不是照片或视频)"
    case (.japanese, false): "その他のファイル \(count) 件は表示していません(--include-other)"
    case (.japanese, true): "その他のファイル \(count) 件を表示しました(写真・ビデオ以外)"
    }
  }

  /// The Group cell of a file that is not an asset (`--include-other`).
  var otherFileGroup: String {
    switch language {
    case .english: "(other)"
    case .simplifiedChinese: "(其他文件)"
    case .japanese: "(その他)"
    }
  }

  /// The message when `lookup` or `thumbnail` is given the path of a file that is not an
  /// asset; `reason` is the file's own message.
  func notAnAsset(_ path: String, reason: String) -> String {
    switch language {
    case .english: "'\(path)' is not a photo or video, so it is not an asset: \(reason)"
    case .simplifiedChinese: "“\(path)”不是照片或视频，因此不是项目：\(reason)"
    case .japanese: "「\(path)」は写真やビデオではないため、アセットではありません：\(reason)"
    }
  }

  /// `2 groups`.
  func groupSummary(count: Int) -> String {
    switch language {
    case .english: "\(count) \(count == 1 ? "group" : "groups")"
    case .simplifiedChinese: "共 \(count) 个相簿"
    case .japanese: "\(count) 個のアルバム"
    }
  }

  /// A line for a folder that could not be listed.
  func folderProblem(_ path: String, _ problem: String) -> String {
    switch language {
    case .english: "Folder '\(path)' was not read: \(problem)"
    case .simplifiedChinese: "未能读取文件夹“\(path)”：\(problem)"
    case .japanese: "フォルダ「\(path)」を読み込めませんでした：\(problem)"
    }
  }

  /// The message when `lookup` finds no asset.
  func assetNotFound(_ url: String, library: String) -> String {
    switch language {
    case .english: "No asset with URL '\(url)' in the photo library at '\(library)'."
    case .simplifiedChinese: "相册“\(library)”中没有 URL 为“\(url)”的项目。"
    case .japanese: "写真ライブラリ「\(library)」に URL「\(url)」のアセットはありません。"
    }
  }

  /// The message when `lookup` or `thumbnail` is given a path that names no asset.
  func noAssetAtPath(_ path: String, library: String) -> String {
    switch language {
    case .english: "No asset at '\(path)' in the photo library at '\(library)'."
    case .simplifiedChinese: "相册“\(library)”中“\(path)”处没有项目。"
    case .japanese: "写真ライブラリ「\(library)」の「\(path)」にアセットはありません。"
    }
  }

  /// The message when `lookup` or `thumbnail` is given a path outside the library.
  func outsideLibrary(_ path: String, library: String) -> String {
    switch language {
    case .english: "'\(path)' is not a file inside the photo library at '\(library)'."
    case .simplifiedChinese: "“\(path)”不是相册“\(library)”中的文件。"
    case .japanese: "「\(path)」は写真ライブラリ「\(library)」の中のファイルではありません。"
    }
  }

  /// The message when an asset embeds no thumbnail.
  func noThumbnail(_ name: String) -> String {
    switch language {
    case .english: "'\(name)' has no embedded thumbnail."
    case .simplifiedChinese: "“\(name)”没有内嵌缩略图。"
    case .japanese: "「\(name)」には埋め込みサムネイルがありません。"
    }
  }

  /// The message when the thumbnail cannot be written to `path`.
  func cannotWrite(_ path: String, reason: String) -> String {
    switch language {
    case .english: "Cannot write the thumbnail to '\(path)': \(reason)."
    case .simplifiedChinese: "无法将缩略图写入“\(path)”：\(reason)。"
    case .japanese: "サムネイルを「\(path)」に書き込めません：\(reason)。"
    }
  }
}
