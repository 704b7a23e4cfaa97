import {
  type Config,
  invalidConfiguration,
  parseConfig,
  parseVariables,
  splitList,
} from "@table-archiver/core/config";
import type { z } from "zod";
import { type LocalEnv, localEnvSchema } from "./local-env-schema";

/** The local deployment's settings: `LocalSettings` is this schema's output. */
export const localSettingsSchema = localEnvSchema.transform(toLocalSettings);

/** The API service, token generator and key-value loader of `pnpm dev`. */
export type LocalSettings = z.output<typeof localSettingsSchema>;

/** The archiver's configuration with the local deployment's settings beside it. */
export type LocalConfig = Config & { readonly local: LocalSettings };

/**
 * The configuration of `pnpm dev` and the CLI: core's (loadConfig) and the
 * local deployment's, parsed together, so a bad variable of either is named
 * in the one ConfigError that names every bad variable.
 */
export function loadLocalConfig(
  source: Readonly<Record<string, string | undefined>> = process.env,
): LocalConfig {
  const core = parseConfig(source);
  const local = parseVariables(localSettingsSchema, source);
  if (!core.ok || !local.ok) {
    throw invalidConfiguration([...(core.ok ? [] : core.problems), ...(local.ok ? [] : local.problems)]);
  }
  return { ...core.value, local: local.value };
}

function toLocalSettings(env: LocalEnv) {
  return {
    port: env.PORT,
    host: env.HOST,
    /** `debug` enables /api/tokenGenerators. */
    appEnv: env.APP_ENV,
    /** DEBUG_UIDS split on commas; empty lets any well-formed uid have a token. */
    debugUids: splitList(env.DEBUG_UIDS),
    tokenSecret: env.LOCAL_TOKEN_SECRET,
    tokenTtlSeconds: env.LOCAL_TOKEN_TTL_SECONDS,
    /** ARCHIVER_POLICIES: the retention policies' file; unset leaves the schedules in Redis as they are. */
    policiesFile: env.ARCHIVER_POLICIES,
    loader: {
      query: env.LOADER_QUERY,
      table: env.LOADER_TABLE,
      hash: env.LOADER_HASH,
      batchRows: env.LOADER_BATCH_ROWS,
    },
  } as const;
}
