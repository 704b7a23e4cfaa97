import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { Redis } from "ioredis";

/**
 * Latency of `loadRedisData` under load: a 3,650-member `mig_<table>` set
 * (ten years of days) read by 200 concurrent clients for ten seconds, over
 * loopback. The function is served by the local stack (`local`, the default:
 * the Fastify server of `pnpm dev`, token check included) or by the Functions
 * Framework's own server as when deployed (`ff`), in a child process so the
 * load generator does not share its event loop. After a two-second warm-up,
 * prints p50, p99 and requests per second; the target is p99 <= 50 ms.
 */
export interface ReaderBenchOptions {
  readonly stack?: "ff" | "local";
  readonly connections?: number;
  readonly seconds?: number;
  readonly members?: number;
  readonly redisUrl?: string;
}

export interface ReaderBenchResult {
  readonly stack: string;
  readonly connections: number;
  readonly seconds: number;
  readonly members: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly non2xx: number;
  readonly errors: number;
}

export async function main(options: ReaderBenchOptions = {}): Promise<ReaderBenchResult> {
  const stack = options.stack ?? "local";
  const connections = options.connections ?? 200;
  const seconds = Math.min(options.seconds ?? 10, 60);
  const members = options.members ?? 3650;
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const key = `mig_bench_${randomBytes(4).toString("hex")}`;
  const redis = new Redis(redisUrl);
  const days = Array.from({ length: members }, (_, i) =>
    new Date(Date.UTC(2015, 0, 1 + i)).toISOString().slice(0, 10),
  );
  let child: ChildProcess | undefined;
  try {
    await redis.sadd(key, ...days);
    const server = await startServer(stack, redisUrl);
    child = server.child;
    const body = JSON.stringify({ method: "getSet", data: key });
    const check = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...server.headers },
      body,
    });
    const answer = (await check.json()) as unknown[];
    if (check.status !== 200 || answer.length !== members) {
      throw new Error(
        `the reader answered ${check.status} with ${answer.length} members, expected ${members}`,
      );
    }
    const load = (duration: number) =>
      autocannon({
        url: server.url,
        method: "POST",
        headers: { "content-type": "application/json", ...server.headers },
        body,
        connections,
        duration,
      });
    // The first second runs cold (JIT, connection set-up); it is not the figure asked for.
    await load(2);
    const result = await load(seconds);
    const figures: ReaderBenchResult = {
      stack,
      connections,
      seconds,
      members,
      requests: result.requests.total,
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      maxMs: result.latency.max,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
    console.log(
      `reader (${stack}): ${connections} clients, ${members}-member set, ${seconds} s: ` +
        `p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, max ${figures.maxMs} ms, ` +
        `${figures.requestsPerSecond} req/s, non-2xx ${figures.non2xx}, errors ${figures.errors} ` +
        `(target p99 <= 50 ms: ${figures.p99Ms <= 50 && figures.non2xx === 0 ? "met" : "NOT met"})`,
    );
    console.log(JSON.stringify(figures));
    return figures;
  } finally {
    child?.kill();
    await redis.del(key).catch(() => {});
    redis.disconnect();
  }
}

interface ChildServer {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly child: ChildProcess;
}

async function startServer(stack: string, redisUrl: string): Promise<ChildServer> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve", stack], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, REDIS_URL: redisUrl, LOG_LEVEL: "error" },
  });
  const ready = await new Promise<{ url: string; headers: Record<string, string> }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { url: string; headers: Record<string, string> }));
    child.once("exit", (code) => reject(new Error(`the reader server exited with ${code} before listening`)));
  });
  return { ...ready, child };
}

/** Child side: serves the reader on an ephemeral loopback port and reports its URL. */
async function serve(stack: string): Promise<void> {
  process.on("disconnect", () => process.exit(0));
  if (stack === "ff") {
    await import("@table-archiver/redis-reader/function");
    // The framework is a dependency of the function package, not of the repo
    // root, so it is resolved from there.
    const fromReader = createRequire(import.meta.resolve("@table-archiver/redis-reader"));
    const { getTestServer } = fromReader("@google-cloud/functions-framework/testing") as {
      getTestServer(name: string): Server;
    };
    const server = getTestServer("loadRedisData");
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    process.send?.({ url: `http://127.0.0.1:${port}/loadRedisData`, headers: {} });
    return;
  }
  if (stack === "local") {
    const { silentLogger } = await import("@table-archiver/core/logging");
    const { buildLocalServer, loadLocalConfig } = await import("@table-archiver/local");
    const config = loadLocalConfig({ ...process.env, APP_ENV: "debug", DEBUG_UIDS: "bench" });
    const server = await buildLocalServer({ config, logger: silentLogger });
    const base = await server.listen({ port: 0, host: "127.0.0.1" });
    const { token } = await server.tokens.issue("bench");
    process.send?.({ url: `${base}/loadRedisData`, headers: { authorization: `Bearer ${token}` } });
    return;
  }
  throw new Error(`unknown stack ${stack}; choose ff or local`);
}

const isEntry = process.argv[1] === fileURLToPath(import.meta.url);
if (isEntry && process.argv[2] === "--serve") {
  await serve(process.argv[3] ?? "local");
} else if (isEntry) {
  const stack = process.argv[2] === "ff" ? "ff" : "local";
  await main({ stack });
}
