public import Testing

extension Trait where Self == TimeLimitTrait {
  /// The time limit of a test that could hang (a run waiting for a FIFO, a child that never
  /// ends): it catches a hang, not slowness.
  ///
  /// A test's time counts from its start, and every test of the suite starts at once: a
  /// test that awaits waits for a thread of the cooperative pool (as many as the cores)
  /// behind the other tests' work each time it resumes. Under AddressSanitizer on two cores
  /// that made tests that take under a second alone last 60–150 s, so a limit near a
  /// minute failed at random. Ten minutes is well past the longest sanitizer run of the
  /// whole suite, and far inside the time CI gives all of it.
  public static var hangLimit: Self { .timeLimit(.minutes(10)) }
}
