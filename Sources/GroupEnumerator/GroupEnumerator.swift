// `import GroupEnumerator` gives the whole library: the core's types (everything that
// needs no more of Foundation than FoundationEssentials) and, in this module, the
// declarations that need Foundation itself. Programs of this package that must start fast
// (the Demo) link the core alone.
@_exported public import GroupEnumeratorCore
