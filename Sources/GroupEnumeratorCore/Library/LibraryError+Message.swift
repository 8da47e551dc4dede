extension LibraryError: CustomStringConvertible {
  /// The message in English.
  public var description: String { message(in: .english) }

  /// The message for people, naming the path and what to do.
  ///
  /// - Parameter language: The language to write it in.
  /// - Returns: One sentence or two.
  public func message(in language: Language) -> String {
    switch (self, language) {
    case (.rootNotFound(let path), .english):
      "No photo library at '\(path)': the folder does not exist."
    case (.rootNotFound(let path), .simplifiedChinese):
      "找不到相册“\(path)”：该文件夹不存在。"
    case (.rootNotFound(let path), .japanese):
      "写真ライブラリ「\(path)」が見つかりません：フォルダが存在しません。"
    case (.rootNotADirectory(let path), .english):
      "No photo library at '\(path)': it is a file, not a folder."
    case (.rootNotADirectory(let path), .simplifiedChinese):
      "“\(path)”不是相册：它是一个文件，而不是文件夹。"
    case (.rootNotADirectory(let path), .japanese):
      "「\(path)」は写真ライブラリではありません：フォルダではなくファイルです。"
    case (.permissionDenied(let path), .english):
      "Cannot access the photo library at '\(path)': permission denied."
        + " Allow this user to read the folder and try again."
    case (.permissionDenied(let path), .simplifiedChinese):
      "无法访问相册“\(path)”：权限被拒绝。请允许当前用户读取该文件夹后重试。"
    case (.permissionDenied(let path), .japanese):
      "写真ライブラリ「\(path)」にアクセスできません：権限がありません。"
        + "このユーザーに読み取りを許可してから再試行してください。"
    case (.unreadableRoot(let path, let call, let errno), .english):
      "Cannot read the photo library at '\(path)': \(call) failed (\(Errno(rawValue: errno)))."
    case (.unreadableRoot(let path, let call, let errno), .simplifiedChinese):
      "无法读取相册“\(path)”：\(call) 失败（\(Errno(rawValue: errno))）。"
    case (.unreadableRoot(let path, let call, let errno), .japanese):
      "写真ライブラリ「\(path)」を読み込めません：\(call) が失敗しました（\(Errno(rawValue: errno))）。"
    case (.cancelled, .english): "Loading the photo library was cancelled."
    case (.cancelled, .simplifiedChinese): "已取消载入相册。"
    case (.cancelled, .japanese): "写真ライブラリの読み込みはキャンセルされました。"
    }
  }
}
