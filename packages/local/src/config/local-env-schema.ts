import { intFrom } from "@table-archiver/core/config";
import { z } from "zod";

/**
 * The LOCAL_TOKEN_SECRET values docs/local-deployment.md prints (now and
 * before): copied into a `.env`, they would let anyone who read the page sign
 * tokens for the local stack, so it refuses to start with them.
 */
export const DOCUMENTED_EXAMPLE_SECRETS: readonly string[] = [
  "<output of: openssl rand -hex 32>",
  "change-me-to-at-least-32-characters!",
];

/**
 * The variables of the local deployment (`pnpm dev`: the API service, the
 * token generator and the key-value loader), by their public names. The
 * functions never read them; `pnpm archiver days` reads PORT, HOST and
 * DEBUG_UIDS to find the local stack. docs/configuration.md lists them with
 * core's variables (configuration-doc.test.ts checks both).
 */
export const localEnvSchema = z.object({
  PORT: intFrom(1, 65_535, 3000),
  /** Address the local server listens on; 0.0.0.0 when it runs in a container. */
  HOST: z.string().min(1).default("127.0.0.1"),
  APP_ENV: z.string().default("local"),
  DEBUG_UIDS: z.string().optional(),
  LOCAL_TOKEN_SECRET: z
    .string()
    .min(32, "at least 32 characters")
    .refine((secret) => !DOCUMENTED_EXAMPLE_SECRETS.includes(secret), {
      message:
        "is the example docs/local-deployment.md prints, which anyone can read and sign tokens with; " +
        "set a secret of your own, such as the output of `openssl rand -hex 32`",
    })
    .optional(),
  LOADER_QUERY: z.string().optional(),
  LOADER_HASH: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]{1,128}$/)
    .default("transportitas"),
  /** The table the loader reads when LOADER_QUERY is unset: every row, keyed by its primary key. */
  LOADER_TABLE: z
    .string()
    .regex(/^[A-Za-z0-9_$]{1,64}$/, "1-64 letters, digits, _ or $")
    .default("transportitas"),
  /** Rows per pipelined HSET batch of the loader (a batch also stops at 4 MB). */
  LOADER_BATCH_ROWS: intFrom(1, 100_000, 1_000),
  /** Lifetime of the tokens /api/tokenGenerators issues. */
  LOCAL_TOKEN_TTL_SECONDS: intFrom(1, 7 * 86_400, 3_600),
  /** A YAML or JSON file of retention policies that `archiver worker` and `pnpm dev` schedule at start. */
  ARCHIVER_POLICIES: z.string().min(1).optional(),
});

export type LocalEnv = z.output<typeof localEnvSchema>;
