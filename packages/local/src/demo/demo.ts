import "dotenv/config";
import { processIo } from "../cli/cli-io";
import { runDemo } from "./run-demo";

process.exitCode = await runDemo(process.env, processIo());
