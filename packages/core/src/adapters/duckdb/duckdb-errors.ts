import { resolve } from "node:path";
import { ArchiverError, messageOf, TransientError } from "../../errors";

/** DuckDB's words for a file another process has locked, and for who holds it. */
const LOCKED = /could not set lock on file/i;
const HOLDER = /conflicting lock is held in (.+?) \(PID (\d+)\)/i;

/** Whether `error` is DuckDB refusing a file another process holds. */
export function isDuckDbLockError(error: unknown): boolean {
  return LOCKED.test(messageOf(error));
}

/** The holder DuckDB names in a lock error, as `PID 1234, /usr/bin/node`; undefined when it names none. */
function duckDbLockHolder(error: unknown): string | undefined {
  const holder = HOLDER.exec(messageOf(error));
  return holder ? `PID ${holder[2]}, ${holder[1]}` : undefined;
}

/**
 * The DuckDB file is held by another process (DuckDB lets one process at a
 * time open a file), still after waiting for it a while: one line naming the
 * file and the holder instead of DuckDB's own `IO Error`. Transient: it passes
 * once the holder lets go. Recognised across bundles by its name.
 */
export class DuckDbFileInUseError extends TransientError {
  readonly path: string;
  /** The holder as DuckDB names it (`PID 1234, /usr/bin/node`), when it does. */
  readonly holder: string | undefined;

  constructor(path: string, cause: unknown) {
    const holder = duckDbLockHolder(cause);
    super(
      `DuckDB file ${resolve(path)} is in use by another process${holder ? ` (${holder})` : ""}: ` +
        "one process at a time may open a DuckDB file; stop that one (pnpm dev or a worker), or wait for it to finish, and try again",
      { cause },
    );
    this.path = resolve(path);
    this.holder = holder;
  }
}

/**
 * Runs a DuckDB operation, turning the failures that may pass on their own
 * (a transaction conflict, the database file locked by another process, memory
 * or disk running out) into TransientError.
 */
export async function withDuckDbErrors<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ArchiverError) throw error;
    const message = messageOf(error);
    if (/conflict|could not set lock|out of memory|no space left/i.test(message)) {
      throw new TransientError(`DuckDB ${action}: ${message}`, { cause: error });
    }
    throw error;
  }
}
