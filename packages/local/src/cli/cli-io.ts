import type { Readable, Writable } from "node:stream";

/** What a command may touch of its process; injected so tests run commands in-process. */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable;
}

/** Exit codes: 0 done, 1 failed (services, tasks failed for good), 2 bad input. */
export const EXIT = { ok: 0, failed: 1, badInput: 2 } as const;

export function processIo(): CliIo {
  return { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

export function writeLine(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}

/**
 * Ends the process when whoever reads its output has gone (`archiver status
 * | head -2`): a write to a closed pipe fails with EPIPE, which is no error of
 * the command's. Exits 0 at once and prints nothing (stderr may be the same
 * closed pipe); anything else the streams raise is thrown as before.
 */
export function exitQuietlyOnClosedPipe(proc: {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  exit(code: number): never;
}): void {
  for (const stream of [proc.stdout, proc.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") proc.exit(0);
      throw error;
    });
  }
}
