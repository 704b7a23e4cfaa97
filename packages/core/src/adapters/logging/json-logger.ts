import type { LogFields, Logger } from "../../ports/logger";

const RANK = { debug: 0, info: 1, warn: 2, error: 3 } as const;
const SEVERITY = { debug: "DEBUG", info: "INFO", warn: "WARNING", error: "ERROR" } as const;
type Level = keyof typeof RANK;

/**
 * One JSON line per entry with `severity` and `message`, the format Cloud
 * Logging parses from a function's stdout. Bigints print as strings and errors
 * as their message, code and stack.
 */
export function createJsonLogger(
  options: { level?: Level; write?: (line: string) => void; base?: LogFields } = {},
): Logger {
  const min = RANK[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const log = (level: Level) => (message: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    write(JSON.stringify({ severity: SEVERITY[level], message, ...options.base, ...fields }, replacer));
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, code, stack: value.stack };
  }
  return value;
}

/** A logger that drops everything (for tests that do not look at logs). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
