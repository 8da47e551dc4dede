// Every file of this target sees the shared helpers (TemporaryFolder, Sample, the Demo
// process runner) without importing them one by one.
@_exported import TestSupport
