import { ArchiverError } from "./archiver-error";

/** The environment is missing or has bad variables; the message names every one of them. */
export class ConfigError extends ArchiverError {
  readonly code = "INVALID_CONFIG";
}
