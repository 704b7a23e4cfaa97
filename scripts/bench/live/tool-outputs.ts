import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where a memory file system is mounted on Linux. */
const MEMORY_FS = "/dev/shm";

/**
 * A folder for what the tools write, the archiver's DuckDB warehouse and
 * pt-archiver's `--file`, kept off the private servers' disk: in production
 * the warehouse is BigQuery and pt-archiver's file lives on another host, so
 * neither tool's writes reach the primary's disk. On this machine every folder
 * shares one disk, and a local warehouse's fsyncs would stall the workload's
 * commits (and pt-archiver's buffered writes do the same when flushed). On a
 * memory file system when there is one, else beside the servers, said in
 * `where` so the report can tell which.
 */
export async function toolOutputsDir(
  fallbackParent: string,
): Promise<{ readonly dir: string; readonly where: string; remove(): Promise<void> }> {
  let dir: string;
  let where: string;
  try {
    dir = await mkdtemp(join(MEMORY_FS, "bench-live-outputs-"));
    where = `${MEMORY_FS} (memory, off the servers' disk)`;
  } catch {
    dir = await mkdtemp(join(fallbackParent || tmpdir(), "outputs-"));
    where = `${dir} (the servers' disk: no memory file system here)`;
  }
  return { dir, where, remove: () => rm(dir, { recursive: true, force: true }) };
}
