export { ArchiverError } from "./archiver-error";
export { ConfigError } from "./config-error";
export { InvalidInputError } from "./invalid-input-error";
export { isFinalTaskError } from "./is-final-task-error";
export { TransientError } from "./transient-error";
export { type RefusalReason, VerificationError } from "./verification-error";
