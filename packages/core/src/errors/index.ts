export { ArchiverError } from "./archiver-error";
export { ConfigError } from "./config-error";
export { type ArchiverErrorCode, archiverErrorCode, isFinalTaskError } from "./error-code";
export { InvalidInputError } from "./invalid-input-error";
export { messageOf } from "./message-of";
export { TransientError } from "./transient-error";
export { type RefusalReason, VerificationError } from "./verification-error";
