import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { stopByPid } from "@table-archiver/core/testing";

/**
 * Every process the live bench starts (two servers, sysbench, pt-archiver),
 * so that it can end each one by its PID on the way out, on an error or on
 * Ctrl-C alike, and never leaves a private server running behind it.
 */
const running = new Map<number, { readonly name: string; readonly child: ChildProcess }>();

export function startProcess(name: string, command: string, args: string[], options: SpawnOptions = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const pid = child.pid;
  running.set(pid, { name, child });
  child.once("exit", () => running.delete(pid));
  return child;
}

/** Ends one process by its PID: SIGTERM, then SIGKILL after `graceMs`. */
export function stopProcess(child: ChildProcess, graceMs = 30_000): Promise<void> {
  return stopByPid(child, graceMs);
}

/** Ends what is still running, the latest started first (sysbench before the server it talks to). */
export async function stopAllProcesses(): Promise<void> {
  for (const { child } of [...running.values()].reverse()) await stopProcess(child).catch(() => {});
}

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

/**
 * Runs a command to its end (tracked, so Ctrl-C ends it too) and collects its
 * output; `onStdout`, when given, sees the output so far and the seconds
 * since the start each time more arrives.
 */
export function runToEnd(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
  onStdout?: (stdout: string, seconds: number) => void,
) {
  return new Promise<Finished>((resolve, reject) => {
    const started = performance.now();
    const child = startProcess(name, command, args, options);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (data: Buffer) => {
      stdout += data.toString();
      onStdout?.(stdout, (performance.now() - started) / 1000);
    });
    child.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString();
    });
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }),
    );
  });
}

/** Runs a command and fails, with its output, unless it exits 0 (see runToEnd). */
export async function runChecked(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
  onStdout?: (stdout: string, seconds: number) => void,
) {
  const result = await runToEnd(name, command, args, options, onStdout);
  if (result.code !== 0) {
    throw new Error(`${name} exited with ${result.code}:\n${(result.stderr || result.stdout).slice(-2000)}`);
  }
  return result;
}

/**
 * Ctrl-C or a SIGTERM runs `cleanup` (which ends the processes by PID) once,
 * then exits 130; a second Ctrl-C while it runs exits at once.
 */
export function onInterrupt(cleanup: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    console.error(`\n${signal}: stopping the bench's own servers and tools...`);
    void cleanup().finally(() => process.exit(130));
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}
