import "dotenv/config";
import { exitQuietlyOnClosedPipe, processIo } from "./cli-io";
import { runCli } from "./run-cli";

exitQuietlyOnClosedPipe(process);
try {
  process.exitCode = await runCli(process.argv.slice(2), processIo());
} catch (error) {
  // Whatever no command caught still comes out as one `error: ` line, not a stack trace.
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
