import { loadConfig } from "../config";
import { createRuntime } from "./create-runtime";
import type { Runtime } from "./runtime";

let shared: Promise<Runtime> | undefined;

/**
 * The runtime of this process, built from the environment on first use and
 * reused by every invocation (connections stay open between requests). A
 * failed build is forgotten so the next invocation tries again.
 */
export function sharedRuntime(): Promise<Runtime> {
  shared ??= createRuntime(loadConfig()).catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** Closes and forgets the shared runtime (tests, CLI exit). */
export async function closeSharedRuntime(): Promise<void> {
  const current = shared;
  shared = undefined;
  await (await current)?.close();
}
