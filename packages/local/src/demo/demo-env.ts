import { IDENTIFIER } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { localEnvSchema } from "../config/local-env-schema";

type Env = Readonly<Record<string, string | undefined>>;

/** Where the demo works. The defaults are where `pnpm archiver` looks without settings. */
export interface DemoSettings {
  /** The MySQL database the demo creates its table in (ARCHIVER_DEMO_DATABASE, default archiver_demo). */
  readonly database: string;
  /** The table it drops and refills (ARCHIVER_DEMO_TABLE, default orders). */
  readonly table: string;
  /** The warehouse table it copies into: `<table>_archive` in the default dataset. */
  readonly destination: string;
  /** The DuckDB file (ARCHIVER_DEMO_DUCKDB_PATH, default the CLI's DUCKDB_PATH default). */
  readonly duckdbPath: string;
  /** The local queue's prefix (ARCHIVER_DEMO_QUEUE_PREFIX, default the CLI's LOCAL_QUEUE_PREFIX default). */
  readonly queuePrefix: string;
  /** Days of orders, ending yesterday; the older half is migrated (ARCHIVER_DEMO_DAYS, default 730). */
  readonly days: number;
  /** About this many orders a weekday (ARCHIVER_DEMO_ORDERS_PER_DAY, default 300). */
  readonly perDay: number;
}

/**
 * The demo's own variables. They exist so that tests (and anyone who wants
 * the demo kept apart from their own archiver data) can give it other names;
 * the archiver's variables (MYSQL_URL's database, DUCKDB_PATH,
 * LOCAL_QUEUE_PREFIX, WAREHOUSE, QUEUE) never move it.
 */
const DEMO_VARIABLES = [
  "ARCHIVER_DEMO_DATABASE",
  "ARCHIVER_DEMO_TABLE",
  "ARCHIVER_DEMO_DUCKDB_PATH",
  "ARCHIVER_DEMO_QUEUE_PREFIX",
  "ARCHIVER_DEMO_DAYS",
  "ARCHIVER_DEMO_ORDERS_PER_DAY",
] as const;

/**
 * Variables of the local stack (`pnpm dev`) that the demo has no use for: it
 * serves the reader on a port of its own and signs its own token, so neither
 * DEBUG_UIDS nor a malformed LOADER_* in `.env` can stop it.
 */
const LOCAL_STACK_VARIABLES: readonly string[] = Object.keys(localEnvSchema.shape);

/** What `pnpm archiver` uses when a variable is unset. */
function cliDefaults() {
  const config = loadConfig({});
  return {
    MYSQL_URL: config.mysql.url,
    DUCKDB_PATH: config.warehouse.kind === "duckdb" ? config.warehouse.path : ".data/warehouse.duckdb",
    LOCAL_QUEUE_PREFIX: config.queue.kind === "local" ? config.queue.prefix : "archiver",
    WAREHOUSE: "duckdb",
    QUEUE: "local",
  };
}

/** Reads the demo's settings; throws one Error naming every bad ARCHIVER_DEMO_* variable. */
export function demoSettings(env: Env): DemoSettings {
  const defaults = cliDefaults();
  const problems: string[] = [];
  const name = (variable: string, fallback: string) => {
    const value = env[variable] || fallback;
    if (!IDENTIFIER.test(value)) problems.push(`${variable}: 1-64 letters, digits, _ or $`);
    return value;
  };
  const count = (variable: string, fallback: number, min: number, max: number) => {
    const value = env[variable] ? Number(env[variable]) : fallback;
    if (!Number.isInteger(value) || value < min || value > max)
      problems.push(`${variable}: ${min} to ${max}`);
    return value;
  };
  const table = name("ARCHIVER_DEMO_TABLE", "orders");
  const settings: DemoSettings = {
    database: name("ARCHIVER_DEMO_DATABASE", "archiver_demo"),
    table,
    destination: `${table.slice(0, 56)}_archive`,
    duckdbPath: env.ARCHIVER_DEMO_DUCKDB_PATH || defaults.DUCKDB_PATH,
    queuePrefix: env.ARCHIVER_DEMO_QUEUE_PREFIX || defaults.LOCAL_QUEUE_PREFIX,
    // More than a year, so that something is older than the cutoff; a migration enqueues at most 10,000 days.
    days: count("ARCHIVER_DEMO_DAYS", 730, 367, 10_000),
    perDay: count("ARCHIVER_DEMO_ORDERS_PER_DAY", 300, 1, 100_000),
  };
  if (problems.length > 0) throw new Error(`invalid demo settings: ${problems.join("; ")}`);
  return settings;
}

/**
 * The environment the demo's runtime is configured from. The demo drops and
 * refills its table and resets its records, so it only ever works on its own:
 * the MySQL server and credentials come from MYSQL_URL (or .env), but the
 * database is always the demo's, the warehouse is always DuckDB at the demo's
 * path and the queue always the local one under the demo's prefix, whatever
 * the environment says. The local stack's variables are left out.
 */
export function demoEnv(env: Env, settings: DemoSettings): Record<string, string | undefined> {
  const url = new URL(env.MYSQL_URL || cliDefaults().MYSQL_URL);
  url.pathname = `/${settings.database}`;
  const kept = Object.entries(env).filter(
    ([key]) => !LOCAL_STACK_VARIABLES.includes(key) && !(DEMO_VARIABLES as readonly string[]).includes(key),
  );
  return {
    ...Object.fromEntries(kept),
    MYSQL_URL: url.toString(),
    DUCKDB_PATH: settings.duckdbPath,
    LOCAL_QUEUE_PREFIX: settings.queuePrefix,
    WAREHOUSE: "duckdb",
    QUEUE: "local",
  };
}

/**
 * The variables `pnpm archiver` needs, on top of what it reads from the same
 * environment and `.env`, to see the demo's data: those where the demo's value
 * differs from the CLI's. MYSQL_URL's password, if it has one, is shown as ***.
 */
export function cliOverrides(env: Env, demo: Env): { name: string; value: string }[] {
  const defaults = cliDefaults();
  const overrides: { name: string; value: string }[] = [];
  for (const name of Object.keys(defaults) as (keyof typeof defaults)[]) {
    const cli = env[name] || defaults[name];
    const wanted = demo[name] ?? "";
    const same = name === "MYSQL_URL" ? sameUrl(cli, wanted) : cli === wanted;
    if (!same) overrides.push({ name, value: name === "MYSQL_URL" ? maskPassword(wanted) : wanted });
  }
  return overrides;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).toString() === new URL(b).toString();
  } catch {
    return false;
  }
}

function maskPassword(value: string): string {
  const url = new URL(value);
  if (url.password) url.password = "***";
  return url.toString();
}

/** The README's next steps, as commands to paste, with the overrides the CLI needs in front. */
export function continueCommands(env: Env, demo: Env, table: string): string[] {
  const prefix = cliOverrides(env, demo)
    .map(({ name, value }) => `${name}=${shellQuote(value)} `)
    .join("");
  const clean = { clean_table: table, filter_column: "created_at" };
  return [
    `${prefix}pnpm archiver status`,
    `${prefix}pnpm archiver publish --message ${shellQuote(JSON.stringify(clean))}`,
    `${prefix}pnpm archiver publish --wait --message ${shellQuote(JSON.stringify({ ...clean, dry_run: false }))}`,
  ];
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
