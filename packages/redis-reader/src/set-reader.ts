import { once } from "node:events";
import { messageOf, TransientError } from "@table-archiver/core";
import { HttpError } from "@table-archiver/core/http";

/**
 * Returns a set's members as one JSON array text, in Redis' order. One bulk
 * reply instead of an array of thousands of elements: decoding a 3,650-member
 * SMEMBERS reply element by element costs the client several times more CPU
 * than Redis spends on the whole script.
 */
const MEMBERS_AS_JSON =
  "local m = redis.call('SMEMBERS', KEYS[1]) if #m == 0 then return '[]' end return cjson.encode(m)";

/** The one Redis call the reader makes; ioredis' client satisfies it. */
export interface SetSource {
  eval(script: string, numberOfKeys: number, key: string): Promise<unknown>;
}

export interface SetReaderOptions {
  /** Gives up on Redis after this long and answers 503 (default 2000 ms). */
  readonly timeoutMs?: number;
}

/** Reads a set and returns the JSON answer's bytes: the members sorted ascending. */
export type SetReader = (key: string) => Promise<Buffer>;

interface KeyReads {
  running?: Promise<Buffer>;
  next?: Promise<Buffer>;
  /** The last reply and the answer made from it; the answer depends on nothing else. */
  last?: { readonly reply: string; readonly body: Buffer };
}

/**
 * Reads sets, coalescing concurrent requests for the same key without ever
 * answering from stale data: a request joins only a read that starts after it
 * arrived (the next one when a read is already running), so every answer
 * includes every write completed before the request. Under load one read
 * serves many requests, and while Redis returns the same text the sorted
 * answer is reused rather than rebuilt. Nothing is kept once a key's reads stop.
 */
export function createSetReader(source: () => SetSource, options: SetReaderOptions = {}): SetReader {
  const timeoutMs = options.timeoutMs ?? 2000;
  const reads = new Map<string, KeyReads>();

  const run = (key: string, state: KeyReads): Promise<Buffer> => {
    const read: Promise<Buffer> = readSorted(source, key, state, timeoutMs).finally(() => {
      if (state.running === read) state.running = undefined;
      if (!state.running && !state.next) reads.delete(key);
    });
    state.running = read;
    return read;
  };

  return (key) => {
    let state = reads.get(key);
    if (!state) {
      state = {};
      reads.set(key, state);
    }
    const running = state.running;
    if (!running) return run(key, state);
    const current = state;
    current.next ??= running.then(noop, noop).then(() => {
      current.next = undefined;
      return run(key, current);
    });
    return current.next;
  };
}

async function readSorted(source: () => SetSource, key: string, state: KeyReads, timeoutMs: number) {
  // The platform's timer rather than the client's: any SetSource gets the deadline.
  const expired = once(AbortSignal.timeout(timeoutMs), "abort").then(() => {
    throw new TransientError(`Redis did not answer within ${timeoutMs} ms`);
  });
  const reply = await Promise.race([readMembers(source, key), expired]);
  if (state.last?.reply === reply) return state.last.body;
  const members = JSON.parse(reply) as string[];
  const body = Buffer.from(JSON.stringify(members.sort()));
  state.last = { reply, body };
  return body;
}

async function readMembers(source: () => SetSource, key: string): Promise<string> {
  let reply: unknown;
  try {
    reply = await source().eval(MEMBERS_AS_JSON, 1, key);
  } catch (error) {
    // A key of another type will not become a set by retrying.
    if (messageOf(error).includes("WRONGTYPE")) {
      throw new HttpError("NOT_A_SET", `${key} exists but is not a set`);
    }
    throw new TransientError(`Redis could not be read: ${messageOf(error)}`, { cause: error });
  }
  if (typeof reply !== "string") throw new TransientError("Redis answered the members script with no text");
  return reply;
}

function noop(): void {}
