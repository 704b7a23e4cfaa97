import { expect } from "vitest";
import { RefusalError } from "../errors";
import type { DayDeleter } from "../ports/day-deleter";

// Faults a cleanup test injects around any DayDeleter (MySQL's or the in-memory one).

/** Runs `hook` once, right after the chunk plan is made (verification passed, nothing deleted yet). */
export function afterPlanning(deleter: DayDeleter, hook: () => Promise<unknown>): DayDeleter {
  return {
    ...deleter,
    async planChunks(...args) {
      const chunks = await deleter.planChunks(...args);
      await hook();
      return chunks;
    },
  };
}

/**
 * Simulates the process dying on chunk `n`: "after" lets chunk n commit and
 * dies before the task can record it; "before" dies instead of running it.
 */
export function failAfter(deleter: DayDeleter, n: number, when: "after" | "before" = "after"): DayDeleter {
  let calls = 0;
  const die = async <T>(run: () => Promise<T>): Promise<T> => {
    calls += 1;
    if (calls < n) return run();
    if (when === "after") await run();
    throw new Error("killed");
  };
  return {
    ...deleter,
    deleteChunk: (...args) => die(() => deleter.deleteChunk(...args)),
  };
}

/** Runs a task that must be refused and returns its RefusalError; a task that passes fails the test. */
export async function refusal(run: Promise<unknown>): Promise<RefusalError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RefusalError);
  return error as RefusalError;
}
