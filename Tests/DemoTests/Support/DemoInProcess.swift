import Foundation

@testable import Demo

/// Runs the Demo's command in this process and returns its exit status and what it wrote.
/// A page is drawn without the desktop's thumbnail cache (`--no-cache` is added to every
/// `--format html` run), so that no test writes into the user's `~/.cache`.
@MainActor func run(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String)
{
  var stdout = TextBuffer()
  var stderr = TextBuffer()
  let arguments = arguments.contains("html") ? arguments + ["--no-cache"] : arguments
  let status = await DemoCommand.run(arguments: arguments, stdout: &stdout, stderr: &stderr)
  return (status, stdout.text, stderr.text)
}
