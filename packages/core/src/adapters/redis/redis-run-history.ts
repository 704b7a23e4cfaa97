import type { Redis } from "ioredis";
import { finishedRun, type RunCounts, type RunRecord, type RunStart } from "../../model/run";
import type { RunHistory } from "../../ports/run-history";
import { withRedisErrors } from "./map-redis-error";

/** How long a run's live counts outlive its last news: a run whose tasks never all end is let go then. */
const RUN_TTL_SECONDS = 14 * 24 * 3600;

const COUNT_FIELDS = ["copied", "cleaned", "refused", "deferred", "failed", "rows"] as const;
const WAIT = "wait:";

/**
 * Finishes the run once its `queued` is known and that many tasks have ended:
 * `finished` is set at most once, so exactly one caller gets the hash.
 */
const FINISH = `
local function finish()
  local queued = redis.call("HGET", KEYS[1], "queued")
  if not queued then return false end
  if redis.call("SCARD", KEYS[2]) < tonumber(queued) then return false end
  if redis.call("HSETNX", KEYS[1], "finished", "1") == 0 then return false end
  return redis.call("HGETALL", KEYS[1])
end
local function latest(at)
  local last = redis.call("HGET", KEYS[1], "endedAt")
  if not last or at > last then redis.call("HSET", KEYS[1], "endedAt", at) end
end
local function add(from)
  for i = from, #ARGV, 2 do redis.call("HINCRBY", KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local function keep(ttl)
  redis.call("EXPIRE", KEYS[1], ttl)
  redis.call("EXPIRE", KEYS[2], ttl)
end
`;

/** ARGV: start JSON, queued, instant, ttl, then field / increment pairs. */
const BEGIN_SCRIPT = `${FINISH}
redis.call("HSET", KEYS[1], "start", ARGV[1], "queued", ARGV[2])
latest(ARGV[3])
add(5)
keep(ARGV[4])
return finish()
`;

/** ARGV: task key, instant, ttl, then field / increment pairs. A task already ended adds nothing. */
const TASK_ENDED_SCRIPT = `${FINISH}
if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then return false end
latest(ARGV[2])
add(4)
keep(ARGV[3])
return finish()
`;

/** Key names of a run's live counts under `prefix`. */
export function runKeys(prefix: string, runId: string) {
  return {
    /** Hash: the run's start, `queued`, its counts, `wait:<reason>` ms, `endedAt`, `finished`. */
    run: `${prefix}:run:${runId}`,
    /** Set of the keys (taskKey) of its tasks that ended. */
    ended: `${prefix}:run:${runId}:ended`,
  };
}

/** Counts as HINCRBY field / increment pairs, the waits rounded to whole ms; zeros left out. */
function increments(counts: Partial<RunCounts>): string[] {
  const pairs: string[] = [];
  for (const field of COUNT_FIELDS) {
    const value = Math.round(counts[field] ?? 0);
    if (value !== 0) pairs.push(field, String(value));
  }
  for (const [reason, ms] of Object.entries(counts.waitedMsByReason ?? {})) {
    const value = Math.round(ms);
    if (value !== 0) pairs.push(`${WAIT}${reason}`, String(value));
  }
  return pairs;
}

function recordOf(reply: unknown): RunRecord | undefined {
  if (!Array.isArray(reply)) return undefined;
  const hash = new Map<string, string>();
  for (let i = 0; i + 1 < reply.length; i += 2) hash.set(String(reply[i]), String(reply[i + 1]));
  const start = JSON.parse(hash.get("start") ?? "{}") as RunStart;
  const waited: Record<string, number> = {};
  for (const [field, value] of hash)
    if (field.startsWith(WAIT)) waited[field.slice(WAIT.length)] = Number(value);
  const count = (field: (typeof COUNT_FIELDS)[number]) => Number(hash.get(field) ?? 0);
  const counts: RunCounts = {
    copied: count("copied"),
    cleaned: count("cleaned"),
    refused: count("refused"),
    deferred: count("deferred"),
    failed: count("failed"),
    rows: count("rows"),
    waitedMsByReason: waited,
  };
  return finishedRun(start, Number(hash.get("queued")), counts, hash.get("endedAt") ?? start.startedAt);
}

/**
 * RunHistory on Redis: a hash of counts and a set of ended task keys per run,
 * changed only by scripts, so counting a task, noticing the run is finished
 * and claiming that finish happen with nothing in between. Every key expires
 * RUN_TTL_SECONDS after the run's last news.
 */
export function createRedisRunHistory(redis: Redis, options: { readonly prefix?: string } = {}): RunHistory {
  const prefix = options.prefix ?? "archiver";
  const ttl = String(RUN_TTL_SECONDS);
  return {
    async begin(run, queued, counts, at) {
      const keys = runKeys(prefix, run.id);
      const reply = await withRedisErrors(() =>
        redis.eval(
          BEGIN_SCRIPT,
          2,
          keys.run,
          keys.ended,
          JSON.stringify(run),
          String(queued),
          at,
          ttl,
          ...increments(counts),
        ),
      );
      return recordOf(reply);
    },
    async taskEnded(runId, end) {
      const keys = runKeys(prefix, runId);
      const reply = await withRedisErrors(() =>
        redis.eval(
          TASK_ENDED_SCRIPT,
          2,
          keys.run,
          keys.ended,
          end.task,
          end.endedAt,
          ttl,
          ...increments(end.counts),
        ),
      );
      return recordOf(reply);
    },
  };
}
