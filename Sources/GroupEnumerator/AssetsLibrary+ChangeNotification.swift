public import Foundation

// The notification name and its keys keep the original ALAssetsLibrary spelling (not
// lowerCamelCase, hence the swift-format-ignore lines), so that ported code compiles
// unchanged.

extension Notification.Name {
  // swift-format-ignore: AlwaysUseLowerCamelCase
  /// `ALAssetsLibraryChangedNotification`: posted on `NotificationCenter.default`, on the
  /// main actor, with the library as the object, for each change while
  /// ``AssetsLibrary/postChangeNotifications(started:fail:)`` runs.
  ///
  /// The `userInfo` keys are the original ones: ``ALAssetLibraryUpdatedAssetsKey`` (the
  /// URLs of the inserted, updated and deleted assets, as `Set<URL>`), and
  /// ``ALAssetLibraryInsertedAssetGroupsKey``, ``ALAssetLibraryUpdatedAssetGroupsKey``
  /// and ``ALAssetLibraryDeletedAssetGroupsKey`` (group URLs, as `Set<URL>`). A key is
  /// present only when its set is not empty.
  ///
  /// The modern equivalent is ``AssetsLibrary/changes(coalescing:)``.
  public static let ALAssetsLibraryChanged = Notification.Name("ALAssetsLibraryChangedNotification")
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The `userInfo` key of ``Foundation/Notification/Name/ALAssetsLibraryChanged`` for the
/// assets that changed: a `Set<URL>` of asset URLs (inserted, updated and deleted
/// assets alike; ``LibraryChange`` tells them apart).
public let ALAssetLibraryUpdatedAssetsKey = "ALAssetLibraryUpdatedAssetsKey"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The `userInfo` key of ``Foundation/Notification/Name/ALAssetsLibraryChanged`` for the
/// groups that appeared: a `Set<URL>` of group URLs.
public let ALAssetLibraryInsertedAssetGroupsKey = "ALAssetLibraryInsertedAssetGroupsKey"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The `userInfo` key of ``Foundation/Notification/Name/ALAssetsLibraryChanged`` for the
/// groups whose assets changed: a `Set<URL>` of group URLs.
public let ALAssetLibraryUpdatedAssetGroupsKey = "ALAssetLibraryUpdatedAssetGroupsKey"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The `userInfo` key of ``Foundation/Notification/Name/ALAssetsLibraryChanged`` for the
/// groups that went away: a `Set<URL>` of group URLs.
public let ALAssetLibraryDeletedAssetGroupsKey = "ALAssetLibraryDeletedAssetGroupsKey"

/// Running change notifications; ``cancel()`` stops them.
public struct LegacyChangeNotifications: Sendable {
  let task: Task<Void, Never>

  /// Stops watching; no notification is posted after the watch has ended.
  public func cancel() { task.cancel() }

  /// Waits until the notifications have stopped (cancelled, or `fail` called).
  public func wait() async { await task.value }
}

extension AssetsLibrary {
  /// Posts ``Foundation/Notification/Name/ALAssetsLibraryChanged`` on
  /// `NotificationCenter.default`, on the main actor, for every change of the library,
  /// until cancelled: what `ALAssetsLibrary` did while an instance was alive.
  ///
  /// The modern equivalent is ``changes(coalescing:)``, whose ``LibraryChange``s say
  /// which assets were inserted, updated or deleted.
  ///
  /// - Parameters:
  ///   - started: Called on the main actor once every folder is watched: changes from
  ///     then on are posted.
  ///   - fail: Called on the main actor when watching ends with a fault (the library
  ///     missing or unreadable, its root deleted or moved). Not called on cancellation.
  /// - Returns: A handle to stop the notifications.
  @discardableResult
  public func postChangeNotifications(
    started: @escaping @MainActor @Sendable () -> Void = {},
    fail: @escaping @MainActor @Sendable (LibraryError) -> Void = { _ in }
  ) -> LegacyChangeNotifications {
    let task = Task { @MainActor in
      do throws(LibraryError) {
        let changes = try await self.changes()
        started()
        for try await change in changes {
          NotificationCenter.default.post(
            name: .ALAssetsLibraryChanged, object: self, userInfo: change.legacyUserInfo)
        }
      } catch .cancelled {
        return
      } catch {
        fail(error)
      }
    }
    return LegacyChangeNotifications(task: task)
  }
}

extension LibraryChange {
  /// The `userInfo` of ``Foundation/Notification/Name/ALAssetsLibraryChanged`` for this
  /// change: each key whose set is not empty.
  public var legacyUserInfo: [String: Set<URL>] {
    var info: [String: Set<URL>] = [:]
    // `ALAssetLibraryUpdatedAssetsKey` carries every inserted, updated and deleted asset.
    let assets = Set((insertedAssets + updatedAssets + deletedAssets).map(\.url))
    if !assets.isEmpty { info[ALAssetLibraryUpdatedAssetsKey] = assets }
    let groups: [(String, [AssetGroup])] = [
      (ALAssetLibraryInsertedAssetGroupsKey, insertedGroups),
      (ALAssetLibraryUpdatedAssetGroupsKey, updatedGroups),
      (ALAssetLibraryDeletedAssetGroupsKey, deletedGroups),
    ]
    for (key, list) in groups where !list.isEmpty { info[key] = Set(list.map(\.url)) }
    return info
  }
}
