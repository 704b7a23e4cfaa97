/**
 * The checks on a stack key's value, each a zod schema: what the stack's keys
 * (stackKeys in stack-config.ts) are made of.
 */
import { InvalidInputError, parsePolicies, type RetentionPolicy } from "@table-archiver/core";
import { configEnvNames } from "@table-archiver/core/config";
import { z } from "zod";
import { type EnvName, programEnvNames, secretEnvNames } from "./function-env";

const DURATION = /^\d+(\.\d+)?s$/;
const PRINCIPAL = /^(user|group|serviceAccount|domain|principal|principalSet):\S+$/;
export const MYSQL_URL = /^mysql:\/\/[^/\s]+/;

/** A URL with a password would put a credential in plain function configuration. */
export function withoutPassword(url: string): boolean {
  try {
    return new URL(url).password === "";
  } catch {
    return true;
  }
}

const setIt = (key: string) => `required (pulumi config set ${key} <value>)`;
/** A value the archiver's own variable would accept, so a stack cannot deploy what the functions refuse. */
export const accepted = (variable: z.ZodType) => (value: string) => variable.safeParse(value).success;

export function required(key: string) {
  return z.string({ error: setIt(key) });
}

export function number(fallback: number, min: number, max: number, integer = false) {
  const error = `expected ${integer ? "an integer" : "a number"} from ${min} to ${max}`;
  const value = z.coerce.number({ error }).min(min, { error }).max(max, { error });
  return (integer ? value.int({ error }) : value).default(fallback);
}

export const integer = (fallback: number, min: number, max: number) => number(fallback, min, max, true);

export const duration = (fallback: string) =>
  z.string().regex(DURATION, `a duration such as ${fallback}`).default(fallback);

/** A structured key: pulumi config holds it as JSON text (set with --path). */
export function json<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((text, ctx): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        ctx.addIssue({
          code: "custom",
          message: "expected JSON (set it with --path, e.g. pulumi config set --path 'key[0]' value)",
        });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

export const DATASET_REF = /^(?:([a-z][a-z0-9-]{4,28}[a-z0-9])\.)?([A-Za-z_][A-Za-z0-9_]{0,1023})$/;

export const extraDatasets = z
  .custom<string[]>((v) => Array.isArray(v) && v.every((name) => typeof name === "string"), {
    error: "expected a list of datasets such as archive_2019 or other-project.archive",
  })
  .superRefine((names, ctx) => {
    for (const name of names) {
      if (!DATASET_REF.test(name)) {
        ctx.addIssue({ code: "custom", message: `${name} is not dataset or project.dataset` });
      }
    }
  });

/** A list of IAM principals, none public: `what` says what a public one would expose. */
const principals = (what: string) =>
  z
    .custom<string[]>((v) => Array.isArray(v) && v.every((principal) => typeof principal === "string"), {
      error: "expected a list of IAM principals such as group:ops@example.com",
    })
    .superRefine((principals, ctx) => {
      for (const principal of principals) {
        if (principal === "allUsers" || principal === "allAuthenticatedUsers") {
          ctx.addIssue({ code: "custom", message: `${principal} would ${what}; name people or groups` });
        } else if (!PRINCIPAL.test(principal)) {
          ctx.addIssue({
            code: "custom",
            message: `${principal} is not an IAM principal such as user:ana@example.com`,
          });
        }
      }
    });

export const readerInvokers = principals("make loadRedisData public");

/** Who may publish to the topic: a cleanup message deletes rows, so publishing is that power. */
export const publishers = principals("let anyone publish cleanups, which delete rows");

/** A CA certificate as PEM text: a path would name a file of the deployer's machine, not the function's. */
export const PEM_CERTIFICATE = /^\s*-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/;

const knownEnv = new Set<string>(configEnvNames);
/** The stack key each credential an operator gives is set with. */
const SECRET_KEYS: Record<string, string> = {
  MYSQL_PASSWORD: "mysqlPassword",
  CLEANUP_REPLICA_URLS: "cleanupReplicaUrls",
};
const ownedEnv = new Set<string>([...programEnvNames, ...secretEnvNames]);
/** The stack key a variable the program sets from the operator's value is set with. */
const OWN_KEYS: Record<string, string> = {
  MYSQL_TLS_CA: "mysqlTlsCa",
  MIN_RETENTION_DAYS: "minRetentionDays",
};

export const functionEnv = z
  .record(z.string(), z.unknown(), { error: "expected an object of environment variables" })
  .superRefine((env, ctx) => {
    for (const [name, raw] of Object.entries(env)) {
      const problem = !knownEnv.has(name)
        ? "not a variable the archiver reads"
        : name in SECRET_KEYS
          ? `a credential, kept in Secret Manager: pulumi config set --secret ${SECRET_KEYS[name]}`
          : name in OWN_KEYS
            ? `set with the stack key ${OWN_KEYS[name]}: pulumi config set ${OWN_KEYS[name]} <value>`
            : ownedEnv.has(name)
              ? "set by the program itself (or a secret)"
              : !["string", "number", "boolean"].includes(typeof raw)
                ? "expected a string, number or boolean"
                : undefined;
      if (problem) ctx.addIssue({ code: "custom", path: [name], message: problem });
    }
  })
  .transform(
    (env) =>
      Object.fromEntries(Object.entries(env).map(([name, raw]) => [name, String(raw)])) as Partial<
        Record<EnvName, string>
      >,
  );

/**
 * Who the alerts reach: e-mail addresses, each becoming one notification channel. A malformed
 * one is refused by name, so a typo cannot silently leave an alert with nobody to tell.
 */
export const alertEmails = z
  .custom<string[]>((v) => Array.isArray(v) && v.every((email) => typeof email === "string"), {
    error: "expected a list of e-mail addresses such as ops@example.com",
  })
  .superRefine((emails, ctx) => {
    for (const email of emails) {
      if (!z.email().safeParse(email).success) {
        ctx.addIssue({ code: "custom", message: `${email} is not an e-mail address` });
      }
    }
  });

/**
 * The `retention` key (a list of policies, as the local file declares them) through core's own
 * check, so a stack is refused at `pulumi preview` with the words a local run would use: the
 * table and the field (`retention "orders": cleanup_window: ...`).
 */
export function retentionPolicies(text: string | undefined): {
  readonly policies: RetentionPolicy[];
  readonly problem?: string;
} {
  if (text === undefined) return { policies: [] };
  let declared: unknown;
  try {
    declared = JSON.parse(text);
  } catch {
    return { policies: [], problem: "retention: expected a list of policies (set it in the stack file)" };
  }
  try {
    return { policies: parsePolicies(declared, "retention") };
  } catch (error) {
    if (error instanceof InvalidInputError) return { policies: [], problem: error.message };
    throw error;
  }
}
