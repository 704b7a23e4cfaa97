import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The process of a server running on this machine under one of `names` (pgrep -x), if any. */
export function localServerPid(...names: string[]): string | undefined {
  for (const name of names) {
    try {
      const pid = execFileSync("pgrep", ["-x", name], { encoding: "utf8" }).split("\n")[0];
      if (pid) return pid;
    } catch {
      // Not running under that name, or not on this machine.
    }
  }
  return undefined;
}

/** CPU time used so far by process `pid` (user + system, from /proc), or undefined without one. */
export function processCpuSeconds(pid: string | undefined): number | undefined {
  if (!pid) return undefined;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU time used by this process's children that have ended and been waited for (cutime + cstime, from /proc). */
export function childrenCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** This process's CPU time so far (all its threads, DuckDB's included). */
export function ownCpuSeconds(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
}

/** This thread's CPU time so far (the main thread, where JavaScript runs). */
export function mainThreadCpuSeconds(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1e6;
}
