import { ConfigError, IDENTIFIER } from "@table-archiver/core";
import { Command } from "commander";
import { loadLocalConfig } from "../config/load-local-config";
import { type CliIo, EXIT, processIo, writeLine } from "./cli-io";

/** The reference client's time-out for the read call. */
const DAYS_TIMEOUT_MS = 25_000;

export interface DaysOptions {
  readonly table: string;
  /** `{function_url}` of a deployed reader; absent means the local stack. */
  readonly url?: string;
  /** Identity token to send instead of fetching one (for example `gcloud auth print-identity-token`). */
  readonly token?: string;
  /** Local stack only: the uid the local token is issued for. */
  readonly uid?: string;
  readonly json?: boolean;
}

export interface DaysDeps {
  /** Gives up after this long in all (default 25 s). */
  readonly timeoutMs?: number;
  /** A Google identity token for `audience` (default: google-auth-library's ID token client). */
  readonly idToken?: (audience: string) => Promise<string>;
  /** Receives the exit code (default: process.exitCode). */
  readonly onExit?: (code: number) => void;
}

class DaysError extends Error {}

/**
 * `archiver days --table T [--url URL]`: the migrated days of T, read with the
 * `loadRedisData` function's `getSet` method. With `--url` it calls
 * the deployed function with a Google identity token whose audience is that
 * URL; without, the local stack on 127.0.0.1:$PORT with a local token.
 */
export function daysCommand(io: CliIo = processIo(), deps: DaysDeps = {}): Command {
  return (
    new Command("days")
      .description("migrated days of a table, from the loadRedisData function (getSet)")
      .requiredOption("--table <table>", "source table name; reads the set mig_<table>")
      .option("--url <function_url>", "a deployed function's URL; default: the local stack on PORT")
      .option("--token <token>", "with --url: send this identity token instead of fetching one")
      .option(
        "--uid <uid>",
        "local stack: uid of the local token (default: first of DEBUG_UIDS, else local-dev)",
      )
      .option("--json", "print a JSON array")
      // Added with addCommand it inherits nothing from the program: usage
      // errors throw a CommanderError for the caller instead of exiting.
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      })
      .action(async (options: DaysOptions) => {
        const code = await runDaysCommand(options, io, deps);
        if (deps.onExit) deps.onExit(code);
        else process.exitCode = code;
      })
  );
}

/** Runs the command and returns its exit code: 0, 1 (call failed), or 2 (bad option). */
export async function runDaysCommand(options: DaysOptions, io: CliIo, deps: DaysDeps = {}): Promise<number> {
  if (!IDENTIFIER.test(options.table)) {
    writeLine(io.stderr, "error: --table: 1-64 letters, digits, _ or $");
    return EXIT.badInput;
  }
  try {
    const days = await fetchMigratedDays(options, io.env, deps);
    if (options.json) writeLine(io.stdout, JSON.stringify(days));
    else for (const day of days) writeLine(io.stdout, day);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof DaysError || error instanceof ConfigError)) throw error;
    writeLine(io.stderr, `error: ${error.message}`);
    return error instanceof ConfigError ? EXIT.badInput : EXIT.failed;
  }
}

/** Calls `getSet` for `mig_<table>` and returns the days; failures are DaysErrors with a one-line message. */
export async function fetchMigratedDays(
  options: DaysOptions,
  env: CliIo["env"],
  deps: DaysDeps = {},
): Promise<string[]> {
  const timeoutMs = deps.timeoutMs ?? DAYS_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const target = options.url
    ? await deployedTarget(options, deps)
    : await localTarget(options, env, signal, timeoutMs);
  const response = await call(target.endpoint, signal, timeoutMs, {
    method: "POST",
    headers: { authorization: `bearer ${target.token}`, "content-type": "application/json" },
    body: JSON.stringify({ method: "getSet", data: `mig_${options.table}` }),
  });
  const body = await readBody(response, target.endpoint, signal, timeoutMs);
  if (!response.ok) throw new DaysError(`${target.endpoint} answered ${response.status}: ${describe(body)}`);
  if (!Array.isArray(body) || !body.every((day) => typeof day === "string")) {
    throw new DaysError(`${target.endpoint} answered something other than a list of days`);
  }
  return body;
}

interface Target {
  readonly endpoint: string;
  readonly token: string;
}

async function deployedTarget(options: DaysOptions, deps: DaysDeps): Promise<Target> {
  const functionUrl = (options.url ?? "").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(functionUrl)) throw new DaysError("--url: expected http(s)://host[/path]");
  const endpoint = functionUrl.endsWith("/loadRedisData") ? functionUrl : `${functionUrl}/loadRedisData`;
  if (options.token) return { endpoint, token: options.token };
  try {
    const idToken = deps.idToken ?? (await import("./google-id-token")).googleIdToken;
    return { endpoint, token: await idToken(functionUrl) };
  } catch (error) {
    throw new DaysError(
      `could not get a Google identity token for ${functionUrl}: ${error instanceof Error ? error.message : error}` +
        ' (use a service account key or the metadata server, or pass --token "$(gcloud auth print-identity-token)")',
    );
  }
}

async function localTarget(
  options: DaysOptions,
  env: CliIo["env"],
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Target> {
  const { local } = loadLocalConfig(env);
  const host = ["0.0.0.0", "::", ""].includes(local.host) ? "127.0.0.1" : local.host;
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${local.port}`;
  const uid = options.uid ?? local.debugUids[0] ?? "local-dev";
  const tokenUrl = `${base}/api/tokenGenerators?uid=${encodeURIComponent(uid)}`;
  const response = await call(tokenUrl, signal, timeoutMs, { method: "GET" });
  const body = await readBody(response, tokenUrl, signal, timeoutMs);
  if (response.status === 404) {
    throw new DaysError(
      `the local stack at ${base} issues no tokens: start it with APP_ENV=debug (pnpm dev)`,
    );
  }
  const token = (body as { token?: unknown } | undefined)?.token;
  if (!response.ok || typeof token !== "string") {
    throw new DaysError(`no local token for uid "${uid}": ${response.status} ${describe(body)}`);
  }
  return { endpoint: `${base}/loadRedisData`, token };
}

async function call(
  url: string,
  signal: AbortSignal,
  timeoutMs: number,
  init: RequestInit,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) throw timedOut(url, timeoutMs);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const hint = url.startsWith("http://127.0.0.1") ? "; is the local stack running (pnpm dev)?" : "";
    throw new DaysError(`cannot reach ${new URL(url).origin} (${cause ?? String(error)})${hint}`);
  }
}

async function readBody(
  response: Response,
  url: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (signal.aborted) throw timedOut(url, timeoutMs);
    throw new DaysError(`the answer from ${url} broke off: ${String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 200);
  }
}

function timedOut(url: string, timeoutMs: number): DaysError {
  return new DaysError(
    `no answer from ${new URL(url).origin}${new URL(url).pathname} within ${timeoutMs / 1000} s; the function may be down or the URL wrong`,
  );
}

function describe(body: unknown): string {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error && typeof error.message === "string") return `${String(error.code)}: ${error.message}`;
  return typeof body === "string" ? body : JSON.stringify(body);
}
