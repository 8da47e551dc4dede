/// The version of GroupEnumerator, the newest released version in `CHANGELOG.md`.
///
/// It follows Semantic Versioning; before 1.0.0 a minor version may change the API.
public let groupEnumeratorVersion = "0.1.0"
