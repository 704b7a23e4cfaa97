import { ArchiverError } from "./archiver-error";

/** Figures that must agree do not. Stop that day, leave its data untouched, go on with the others. */
export class VerificationError extends ArchiverError {
  readonly code = "VERIFICATION_FAILED";
}
