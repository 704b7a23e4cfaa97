import { type CleanupMessage, type CleanupSummary, type Runtime, startCleanup } from "@table-archiver/core";

/** Cleanup mode: verification, dry-run report or one clean task per day, over the runtime's connections. */
export function runCleanupMode(runtime: Runtime, message: CleanupMessage): Promise<CleanupSummary> {
  return startCleanup(runtime.cleanup, message);
}
