export { ArchiverError } from "./archiver-error";
export { ConfigError } from "./config-error";
export { type ArchiverErrorCode, archiverErrorCode, isFinalTaskError } from "./error-code";
export { InvalidInputError } from "./invalid-input-error";
export { messageOf } from "./message-of";
export { RefusalError, type RefusalReason } from "./refusal-error";
export { TransientError } from "./transient-error";
