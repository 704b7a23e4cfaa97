import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * `pnpm archiver worker` as its own process, for tests that need a second
 * process (DuckDB's file lock) or one they can kill. It runs the CLI's
 * main.ts under tsx with only the environment given (plus PATH and HOME), in
 * `cwd`, so no `.env` of the repository is read.
 */
export interface CliWorkerProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export function spawnCliWorker(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
): CliWorkerProcess {
  const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout?.on("data", (chunk) => out.push(String(chunk)));
  child.stderr?.on("data", (chunk) => err.push(String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  if (child.pid === undefined) throw new Error("the worker process did not start");
  return { pid: child.pid, child, exited, stdout: () => out.join(""), stderr: () => err.join("") };
}

/** Whether process `pid` holds a POSIX lock on `path` (Linux: /proc/locks), as DuckDB does on its open file. */
export function holdsFileLock(pid: number, path: string): boolean {
  let inode: number;
  try {
    inode = statSync(path).ino;
  } catch {
    return false;
  }
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .some((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[4] === String(pid) && Number(fields[5]?.split(":")[2]) === inode;
    });
}

/** Polls `condition` every 100 ms until it holds, for at most `seconds`; throws `describe()` when it never does. */
export async function waitFor(
  seconds: number,
  condition: () => boolean | Promise<boolean>,
  describe: () => string,
): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`after ${seconds} s: ${describe()}`);
}
