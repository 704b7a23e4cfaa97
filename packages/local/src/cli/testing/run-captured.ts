import { PassThrough, Readable } from "node:stream";
import type { CliIo } from "../cli-io";
import { runCli } from "../run-cli";

/** What one CLI command printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `archiver <argv>` in this process, as a shell would with `env` and
 * `stdin`, and captures what it prints: the CLI end to end without a child
 * process.
 */
export async function runCaptured(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  stdin = "",
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (chunk) => out.push(String(chunk)));
  stderr.on("data", (chunk) => err.push(String(chunk)));
  const io: CliIo = { env: { ...env }, stdin: Readable.from([stdin]), stdout, stderr };
  const code = await runCli([...argv], io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}
