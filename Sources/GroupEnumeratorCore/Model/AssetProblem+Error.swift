/// A problem is also what a reader throws when it cannot go on (a failed read, a file cut
/// short); the caller files it under the asset like any other.
extension AssetProblem: Error {}
