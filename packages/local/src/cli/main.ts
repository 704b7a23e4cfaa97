import "dotenv/config";
import { messageOf } from "@table-archiver/core";
import { exitQuietlyOnClosedPipe, processIo } from "./cli-io";
import { runCli } from "./run-cli";

exitQuietlyOnClosedPipe(process);
try {
  process.exitCode = await runCli(process.argv.slice(2), processIo());
} catch (error) {
  // Whatever no command caught still comes out as one `error: ` line, not a stack trace.
  process.stderr.write(`error: ${messageOf(error)}\n`);
  process.exitCode = 1;
}
