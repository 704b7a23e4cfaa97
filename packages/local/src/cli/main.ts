import "dotenv/config";
import { exitQuietlyOnClosedPipe, processIo } from "./cli-io";
import { runCli } from "./run-cli";

exitQuietlyOnClosedPipe(process);
process.exitCode = await runCli(process.argv.slice(2), processIo());
