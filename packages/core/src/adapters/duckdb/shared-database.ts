import { resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { DUCKDB_DEFAULTS } from "../../config/duckdb-defaults";
import { KeyedMutex } from "./keyed-mutex";

/** A DuckDB database as every warehouse of this process that names its file shares it. */
export interface SharedDatabase {
  readonly instance: DuckDBInstance;
  /** Serializes writes per table across every warehouse using this database. */
  readonly locks: KeyedMutex;
  /**
   * What the warehouses using this database remember of it (one process holds
   * the file, so what this process wrote is all there is), by name.
   */
  readonly memo: Map<string, unknown>;
  /** Gives the database back; the last user closes it. */
  release(): void;
}

interface OpenFile {
  readonly opening: Promise<DuckDBInstance>;
  readonly locks: KeyedMutex;
  readonly memo: Map<string, unknown>;
  users: number;
}

/** DuckDB settings of a database; the first opener of a file chooses them. Unset ones take DUCKDB_DEFAULTS. */
export interface DuckDbSettings {
  /** DUCKDB_MEMORY_LIMIT. */
  readonly memoryLimit?: string;
  /** DUCKDB_THREADS. */
  readonly threads?: number;
  /** DUCKDB_CHECKPOINT_THRESHOLD. */
  readonly checkpointThreshold?: string;
}

/**
 * Extensions are never downloaded: the archiver uses only what is built in.
 * The checkpoint threshold is above DuckDB's 16MB because a checkpoint runs
 * inside the COMMIT that crosses it, holding up that day for 80-170 ms here; a
 * larger WAL checkpoints less often (the WAL is synced on every commit, so
 * durability does not change, only the replay time after a crash).
 * One thread by default: each day is a few small statements, and with a
 * thread per core every COMMIT cost about 60% more CPU here (1.7 vs 2.8 ms for
 * a day of 2,740 rows) for no gain in wall time; parallelism comes from the
 * worker running several days at once.
 */
function duckDbOptions(settings: DuckDbSettings): Record<string, string> {
  return {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    memory_limit: settings.memoryLimit ?? DUCKDB_DEFAULTS.memoryLimit,
    checkpoint_threshold: settings.checkpointThreshold ?? DUCKDB_DEFAULTS.checkpointThreshold,
    threads: String(settings.threads ?? DUCKDB_DEFAULTS.threads),
  };
}

/**
 * Two DuckDB instances on one file in one process do not see each other's
 * writes and would overwrite each other (DuckDB's file lock only keeps other
 * processes out), so each file is opened once and shared. In-memory databases
 * are private to their opener.
 */
const openFiles = new Map<string, OpenFile>();

export async function openSharedDatabase(
  path: string,
  settings: DuckDbSettings = {},
): Promise<SharedDatabase> {
  if (path.startsWith(":memory:")) {
    const instance = await DuckDBInstance.create(path, duckDbOptions(settings));
    return { instance, locks: new KeyedMutex(), memo: new Map(), release: () => instance.closeSync() };
  }
  const key = resolve(path);
  let file = openFiles.get(key);
  if (!file) {
    const opening = DuckDBInstance.create(key, duckDbOptions(settings));
    const created: OpenFile = { opening, locks: new KeyedMutex(), memo: new Map(), users: 0 };
    // A failed open is forgotten so that a later attempt (say, once another process let go of the lock) retries.
    opening.catch(() => {
      if (openFiles.get(key) === created) openFiles.delete(key);
    });
    openFiles.set(key, created);
    file = created;
  }
  const shared = file;
  shared.users++;
  let instance: DuckDBInstance;
  try {
    instance = await shared.opening;
  } catch (error) {
    shared.users--;
    throw error;
  }
  let released = false;
  return {
    instance,
    locks: shared.locks,
    memo: shared.memo,
    release() {
      if (released) return;
      released = true;
      shared.users--;
      if (shared.users === 0) {
        openFiles.delete(key);
        instance.closeSync();
      }
    },
  };
}
