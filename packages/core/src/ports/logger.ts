/** Structured fields of a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Structured logging. The production logger writes one JSON line per call with
 * `severity` and `message` (Cloud Logging's format) and the fields beside them.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
