import type { Redis } from "ioredis";

/** Where a BullMQ job stands: no job, a job still to run (or running), or a job finished for good. */
export type JobPresence = "absent" | "live" | "finished";

/** The keys of one BullMQ queue that tell a job's presence, as BullMQ lays them out. */
export interface BullmqJobKeys {
  /** Prefix of a job's hash: the job id follows. */
  readonly job: string;
  readonly failed: string;
  readonly completed: string;
}

/**
 * Lua `job_presence(job_key_prefix, failed, completed, id)`: 0 absent, 1 live,
 * 2 finished. A job is live when its hash exists and it is in neither finished
 * set: that covers waiting, delayed (including a retry's backoff), active,
 * prioritized and waiting-children without walking BullMQ's lists.
 */
export const JOB_PRESENCE_LUA = `
local function job_presence(job_key_prefix, failed, completed, id)
  if redis.call("EXISTS", job_key_prefix .. id) == 0 then return 0 end
  if redis.call("ZSCORE", failed, id) or redis.call("ZSCORE", completed, id) then return 2 end
  return 1
end
`;

/** KEYS: failed, completed. ARGV: job key prefix, ids... Returns a presence code per id. */
const CLASSIFY_SCRIPT = `${JOB_PRESENCE_LUA}
local out = {}
for i = 2, #ARGV do out[i - 1] = job_presence(ARGV[1], KEYS[1], KEYS[2], ARGV[i]) end
return out
`;

/** Ids per script call: keeps each call short so Redis stays responsive. */
const CHUNK = 1_000;
const PRESENCE: readonly JobPresence[] = ["absent", "live", "finished"];

/** Presence of each job id, in order. */
export async function classifyJobs(
  redis: Redis,
  keys: BullmqJobKeys,
  ids: readonly string[],
): Promise<JobPresence[]> {
  const out: JobPresence[] = [];
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    const codes = (await redis.eval(
      CLASSIFY_SCRIPT,
      2,
      keys.failed,
      keys.completed,
      keys.job,
      ...chunk,
    )) as number[];
    for (const code of codes) out.push(PRESENCE[code] ?? "live");
  }
  return out;
}
