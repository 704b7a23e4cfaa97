import { z } from "zod";

const intFrom = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const timeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { message: "not an IANA time zone (for example UTC or Europe/Madrid)" },
);

/**
 * Every environment variable the archiver reads, by its public name.
 * These names are the interface: infra gives exactly these to the functions.
 * Add, don't rename.
 */
export const envSchema = z.object({
  MYSQL_URL: z.url({ protocol: /^mysql$/ }).default("mysql://root@127.0.0.1:3306/archiver_demo"),
  MYSQL_PASSWORD: z.string().optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default("redis://127.0.0.1:6379"),
  REDIS_AUTH: z.string().optional(),
  WAREHOUSE: z.enum(["duckdb", "bigquery"]).default("duckdb"),
  DUCKDB_PATH: z.string().min(1).default(".data/warehouse.duckdb"),
  WAREHOUSE_DATASET: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,1023}$/, "letters, digits and _ only")
    .default("archive"),
  BIGQUERY_PROJECT: z.string().optional(),
  BIGQUERY_LOCATION: z.string().optional(),
  QUEUE: z.enum(["local", "cloud-tasks"]).default("local"),
  LOCAL_QUEUE_PREFIX: z.string().min(1).default("archiver"),
  ARCHIVER_TIMEZONE: timeZone.default("UTC"),
  COPY_BATCH_ROWS: intFrom(100, 1_000_000, 10_000),
  WORKER_CONCURRENCY: intFrom(1, 64, 2),
  TASK_ATTEMPTS: intFrom(1, 100, 5),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type Env = z.infer<typeof envSchema>;

/** The names of every variable the config module reads. */
export const configEnvNames = Object.keys(envSchema.shape) as (keyof Env)[];
