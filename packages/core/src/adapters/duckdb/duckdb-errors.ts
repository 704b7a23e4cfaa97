import { ArchiverError, TransientError } from "../../errors";

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
    const message = error instanceof Error ? error.message : String(error);
    if (/conflict|could not set lock|out of memory|no space left/i.test(message)) {
      throw new TransientError(`DuckDB ${action}: ${message}`, { cause: error });
    }
    throw error;
  }
}
