import { ConfigError, InvalidInputError, TransientError } from "../../errors";

/** gRPC status codes, which google-gax reports on both transports (gRPC and REST). */
export const Status = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const TRANSIENT: ReadonlySet<number> = new Set([
  Status.UNKNOWN,
  Status.DEADLINE_EXCEEDED,
  Status.RESOURCE_EXHAUSTED,
  Status.ABORTED,
  Status.INTERNAL,
  Status.UNAVAILABLE,
]);

export interface CloudTasksErrorContext {
  /** `creating a task` or `reading the queue`. */
  readonly action: "creating a task" | "reading the queue";
  readonly queuePath: string;
  readonly invokerServiceAccount: string;
}

/** The gRPC status of a google-gax error, if it has one. */
export function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/**
 * Maps a Cloud Tasks failure: unavailable, deadline, quota, aborted and
 * internal errors are TransientError (retried); permission failures are a
 * ConfigError naming the roles to grant; a missing or disabled queue is a
 * ConfigError (deploy the infra); a request Cloud Tasks calls invalid is
 * InvalidInputError (retrying cannot help). Errors without a status are
 * returned unchanged.
 */
export function mapCloudTasksError(error: unknown, context: CloudTasksErrorContext): Error {
  const code = grpcCode(error);
  const said =
    (error as { details?: unknown; message?: unknown } | null)?.details || (error as Error)?.message;
  const where = `Cloud Tasks ${context.action} on ${context.queuePath}`;
  const options = { cause: error };
  if (code === undefined) return error instanceof Error ? error : new Error(`${where}: ${String(error)}`);
  if (TRANSIENT.has(code)) return new TransientError(`${where}: ${said}`, options);
  if (code === Status.PERMISSION_DENIED) {
    const roles =
      context.action === "creating a task"
        ? `roles/cloudtasks.enqueuer on the queue and roles/iam.serviceAccountUser on ${context.invokerServiceAccount} (to mint its OIDC token)`
        : "roles/cloudtasks.viewer on the queue";
    return new ConfigError(
      `${where}: permission denied. Grant the caller's service account ${roles}. Cloud Tasks said: ${said}`,
      options,
    );
  }
  if (code === Status.UNAUTHENTICATED) {
    return new ConfigError(
      `${where}: the credentials were rejected (${said}); check GOOGLE_APPLICATION_CREDENTIALS or the function's service account`,
      options,
    );
  }
  if (code === Status.NOT_FOUND || code === Status.FAILED_PRECONDITION) {
    return new ConfigError(
      `${where}: the queue is missing or disabled (${said}); deploy the infrastructure or resume the queue`,
      options,
    );
  }
  return new InvalidInputError("task", `${where} was refused: ${said}`, options);
}
