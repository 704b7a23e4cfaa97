import { createLagForecast, type LagForecast } from "./lag-forecast";
import { createNicePace, type NicePace } from "./nice-pace";
import { createRedoSteps, type RedoSteps } from "./redo-steps";

/**
 * What a cleanup's throttle carries from one day to the next in one process:
 * the rest the last delete left owing, where each replica's lag is heading,
 * and how far a chunk fills each redo log. A day of one chunk learns none of
 * it alone, so the days a process cleans one after another share one.
 */
export interface ThrottleMemory {
  readonly pace: NicePace;
  readonly lagForecast: LagForecast;
  readonly redoSteps: RedoSteps;
}

export function createThrottleMemory(
  niceRatio: number,
  sleep: (ms: number) => Promise<void>,
): ThrottleMemory {
  return {
    pace: createNicePace({ ratio: niceRatio, sleep }),
    lagForecast: createLagForecast(),
    redoSteps: createRedoSteps(),
  };
}
