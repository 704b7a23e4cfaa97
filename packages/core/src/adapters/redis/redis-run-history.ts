import type { Redis } from "ioredis";
import { finishedRun, type RunCounts, type RunMode, type RunRecord, type RunStart } from "../../model/run";
import type { OpenRun, RunHistory } from "../../ports/run-history";
import { withRedisErrors } from "./map-redis-error";

/** How long a run's live counts outlive its last news: a run whose tasks never all end is let go then. */
const RUN_TTL_SECONDS = 14 * 24 * 3600;

const COUNT_FIELDS = ["copied", "cleaned", "refused", "deferred", "failed", "rows"] as const;
const WAIT = "wait:";

/**
 * Finishes the run once it has begun (`start`) and none of the tasks it
 * queued is pending: `finished` is set at most once, so exactly one caller
 * gets the hash. KEYS: the hash, the ended, queued and pending sets.
 */
const FINISH = `
local function finish()
  if redis.call("HEXISTS", KEYS[1], "start") == 0 then return false end
  if redis.call("SCARD", KEYS[4]) > 0 then return false end
  if redis.call("HSETNX", KEYS[1], "finished", "1") == 0 then return false end
  local hash = redis.call("HGETALL", KEYS[1])
  table.insert(hash, "queued")
  table.insert(hash, tostring(redis.call("SCARD", KEYS[3])))
  return hash
end
local function latest(at)
  local last = redis.call("HGET", KEYS[1], "endedAt")
  if not last or at > last then redis.call("HSET", KEYS[1], "endedAt", at) end
end
local function queue(from, to)
  for i = from, to do
    redis.call("SADD", KEYS[3], ARGV[i])
    if redis.call("SISMEMBER", KEYS[2], ARGV[i]) == 0 then redis.call("SADD", KEYS[4], ARGV[i]) end
  end
end
local function add(from)
  for i = from, #ARGV, 2 do redis.call("HINCRBY", KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local function keep(ttl)
  for i = 1, 4 do redis.call("EXPIRE", KEYS[i], ttl) end
end
`;

/**
 * KEYS: the run's four, then the set of open runs of its table and mode.
 * ARGV: start JSON, instant, ttl, run id, n, then n task keys, then field /
 * increment pairs. A run left open is added to its table's open runs.
 */
const BEGIN_SCRIPT = `${FINISH}
local n = tonumber(ARGV[5])
redis.call("HSET", KEYS[1], "start", ARGV[1])
latest(ARGV[2])
queue(6, 5 + n)
add(6 + n)
keep(ARGV[3])
local finished = finish()
if not finished then
  redis.call("SADD", KEYS[5], ARGV[4])
  redis.call("EXPIRE", KEYS[5], ARGV[3])
end
return finished
`;

/** ARGV: ttl, then task keys. */
const QUEUED_MORE_SCRIPT = `${FINISH}
queue(2, #ARGV)
keep(ARGV[1])
return finish()
`;

/** ARGV: task key, instant, ttl, then field / increment pairs. A task already ended adds nothing. */
const TASK_ENDED_SCRIPT = `${FINISH}
if redis.call("SADD", KEYS[2], ARGV[1]) == 0 then return false end
redis.call("SREM", KEYS[4], ARGV[1])
latest(ARGV[2])
add(4)
keep(ARGV[3])
return finish()
`;

/** Key names of a run's live counts under `prefix`. */
export function runKeys(prefix: string, runId: string): [string, string, string, string] {
  const run = `${prefix}:run:${runId}`;
  // The hash (start, counts, `wait:<reason>` ms, endedAt, finished); the keys (taskKey) of the tasks
  // that ended, of those it queued, and of those queued and not ended yet.
  return [run, `${run}:ended`, `${run}:queued`, `${run}:pending`];
}

/**
 * Key of the set of ids of the runs of `table` and `mode` that were open as
 * they began: a run that finishes later stays in it until openRuns reads it
 * finished (or gone) and takes it out.
 */
export function openRunsKey(prefix: string, table: string, mode: RunMode): string {
  return `${prefix}:runs-open:${mode}:${table}`;
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
 * RunHistory on Redis: a hash of counts and sets of task keys per run,
 * changed only by scripts, so counting a task, noticing the run is finished
 * and claiming that finish happen with nothing in between. Every key of a
 * run expires RUN_TTL_SECONDS after the run's last news; a table's set of
 * open runs (openRunsKey), that long after the latest run of it began.
 */
export function createRedisRunHistory(redis: Redis, options: { readonly prefix?: string } = {}): RunHistory {
  const prefix = options.prefix ?? "archiver";
  const ttl = String(RUN_TTL_SECONDS);
  return {
    async begin(run, tasks, counts, at) {
      const keys = [...runKeys(prefix, run.id), openRunsKey(prefix, run.table, run.mode)];
      const args = [
        JSON.stringify(run),
        at,
        ttl,
        run.id,
        String(tasks.length),
        ...tasks,
        ...increments(counts),
      ];
      return recordOf(await withRedisErrors(() => redis.eval(BEGIN_SCRIPT, 5, ...keys, ...args)));
    },
    async queuedMore(runId, tasks) {
      if (tasks.length === 0) return undefined;
      const keys = runKeys(prefix, runId);
      return recordOf(await withRedisErrors(() => redis.eval(QUEUED_MORE_SCRIPT, 4, ...keys, ttl, ...tasks)));
    },
    async taskEnded(runId, end) {
      const keys = runKeys(prefix, runId);
      const args = [end.task, end.endedAt, ttl, ...increments(end.counts)];
      return recordOf(await withRedisErrors(() => redis.eval(TASK_ENDED_SCRIPT, 4, ...keys, ...args)));
    },
    openRuns: (table, mode) => withRedisErrors(() => readOpenRuns(redis, prefix, table, mode)),
  };
}

/** The open runs of `table` and `mode`; ids of runs finished or expired are taken out of the set. */
async function readOpenRuns(redis: Redis, prefix: string, table: string, mode: RunMode): Promise<OpenRun[]> {
  const index = openRunsKey(prefix, table, mode);
  const ids = await redis.smembers(index);
  if (ids.length === 0) return [];
  const read = redis.pipeline();
  for (const id of ids) {
    const [run, , , pending] = runKeys(prefix, id);
    read.hmget(run, "start", "endedAt", "finished");
    read.smembers(pending);
  }
  const replies = (await read.exec()) ?? [];
  const open: OpenRun[] = [];
  const gone: string[] = [];
  ids.forEach((id, i) => {
    const [hashError, hash] = replies[2 * i] ?? [];
    const [pendingError, pending] = replies[2 * i + 1] ?? [];
    if (hashError || pendingError) throw hashError ?? pendingError;
    const [start, endedAt, finished] = hash as Array<string | null>;
    if (!start || finished) {
      gone.push(id);
      return;
    }
    const parsed = JSON.parse(start) as RunStart;
    open.push({ start: parsed, lastNewsAt: endedAt ?? parsed.startedAt, unended: pending as string[] });
  });
  if (gone.length > 0) await redis.srem(index, ...gone);
  return open;
}
