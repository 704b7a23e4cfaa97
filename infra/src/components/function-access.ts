import type { TaskQueue, Warehouse } from "@table-archiver/core/ports";

/**
 * Where a role is granted:
 * - `queue`: the jobs-migration queue;
 * - `taskInvoker`: the task invoker's service account (to put its identity on tasks);
 * - `project`: the stack's project (BigQuery grants job creation per project only);
 * - `datasets`: every dataset the stack writes to (its own and `extraDatasets`);
 * - `projectDatasets`: those of the stack's project only.
 */
export type AccessScope = "queue" | "taskInvoker" | "project" | "datasets" | "projectDatasets";

/** One role a call needs, and where. */
export interface RoleNeed {
  readonly role: string;
  readonly on: AccessScope;
}

/** A port method the functions call, named `Port.method`. */
export type PortCall = `Warehouse.${keyof Warehouse & string}` | `TaskQueue.${keyof TaskQueue & string}`;

const editsDatasets: RoleNeed = { role: "roles/bigquery.dataEditor", on: "datasets" };
const readsDatasets: RoleNeed = { role: "roles/bigquery.dataViewer", on: "datasets" };
const runsJobs: RoleNeed = { role: "roles/bigquery.jobUser", on: "project" };

/**
 * What each port method asks of Google when the production adapters (BigQuery,
 * Cloud Tasks) serve it. Every method of both ports is listed, so a new one is a
 * type error until its roles are written down here.
 */
export const PORT_CALL_ROLES = {
  // BigQuery: tables.get/create/update on the dataset (the program creates the datasets).
  "Warehouse.ensureTable": [editsDatasets],
  // A load job into the day's partition (WRITE_TRUNCATE), then a DML insert into _archiver_days.
  "Warehouse.replaceDay": [editsDatasets, runsJobs],
  // Query jobs reading the destination table or _archiver_days.
  "Warehouse.dayFigures": [readsDatasets, runsJobs],
  "Warehouse.daysFigures": [readsDatasets, runsJobs],
  "Warehouse.dayKeys": [readsDatasets, runsJobs],
  "Warehouse.countRows": [readsDatasets, runsJobs],
  "Warehouse.dayRecord": [readsDatasets, runsJobs],
  "Warehouse.recordedCopies": [readsDatasets, runsJobs],
  "Warehouse.recordedTables": [readsDatasets, runsJobs],
  // tables.get only.
  "Warehouse.hasTable": [readsDatasets],
  // Creates _archiver_days when missing, then a DML insert (a query job).
  "Warehouse.recordDay": [editsDatasets, runsJobs],
  // Creates _archiver_runs when missing, then a DML insert (a query job), as recordDay.
  "Warehouse.recordRun": [editsDatasets, runsJobs],
  // A query job reading _archiver_runs (the CLI's `archiver runs`; no function reads it).
  "Warehouse.runs": [readsDatasets, runsJobs],
  "Warehouse.close": [],
  // tasks.create with the invoker's OIDC identity (actAs); on a name taken, tasks.get tells live from done.
  "TaskQueue.enqueue": [
    { role: "roles/cloudtasks.enqueuer", on: "queue" },
    { role: "roles/cloudtasks.viewer", on: "queue" },
    { role: "roles/iam.serviceAccountUser", on: "taskInvoker" },
  ],
  // queues.get: the retry policy that says when a bookkept day is stale, and the task count.
  "TaskQueue.queuedDays": [{ role: "roles/cloudtasks.viewer", on: "queue" }],
  "TaskQueue.count": [{ role: "roles/cloudtasks.viewer", on: "queue" }],
  // Redis only.
  "TaskQueue.settle": [],
  "TaskQueue.close": [],
  "TaskQueue.name": [],
} as const satisfies Record<PortCall, readonly RoleNeed[]>;

/** The three functions, by the keys ServiceAccounts and ArchiverFunctions use. */
export type FunctionKey = "entry" | "taskHandler" | "reader";

/**
 * The port methods each function's code paths call, traced in
 * function-access.test.ts by running those paths:
 * - entry (packages/entry, handle-entry-event.ts): startMigration (queued days,
 *   enqueue) and startCleanup (queued days; the warehouse tables exist; the dry
 *   run's warehouse figures per day; enqueue), each as runs, of which one that
 *   queues nothing (a dry run) ends at once, appended to _archiver_runs, as is
 *   an earlier run of the table ended as it begins, stale (endStaleRuns);
 * - task handler (packages/task-handler, handle-task.ts): copyDay (restores a
 *   lost copy record from _archiver_days, prepares the table, replaces the day,
 *   counts it) and cleanDay (the day's figures, the cleanup start recorded in
 *   _archiver_days, a re-copy that keeps every held key), and the end of a run
 *   whose last task it ran, appended to _archiver_runs;
 * - reader (packages/redis-reader): rebuildSet's rebuildMigratedDays (the
 *   recorded copies). getSet reads Redis only.
 */
export const FUNCTION_CALLS: Record<FunctionKey, readonly PortCall[]> = {
  entry: [
    "TaskQueue.queuedDays",
    "TaskQueue.enqueue",
    "Warehouse.hasTable",
    "Warehouse.dayFigures",
    "Warehouse.daysFigures",
    "Warehouse.recordRun",
  ],
  taskHandler: [
    "Warehouse.dayRecord",
    "Warehouse.ensureTable",
    "Warehouse.replaceDay",
    "Warehouse.dayFigures",
    "Warehouse.daysFigures",
    "Warehouse.dayKeys",
    "Warehouse.recordDay",
    "Warehouse.recordRun",
    "TaskQueue.settle",
  ],
  reader: ["Warehouse.recordedCopies"],
};

/**
 * The reader's rebuildSet names a dataset, never a project (parse-reader-request.ts):
 * its dataset grants stop at the stack's project.
 */
const NARROWER_SCOPE: Partial<Record<FunctionKey, Partial<Record<AccessScope, AccessScope>>>> = {
  reader: { datasets: "projectDatasets" },
};

/** A role that holds every permission of another on the same resource. */
const COVERS: Record<string, string> = { "roles/bigquery.dataEditor": "roles/bigquery.dataViewer" };

/** The roles a function needs for its calls, each once, none that another of the same scope covers. */
export function rolesOf(fn: FunctionKey): RoleNeed[] {
  const needs = new Map<string, RoleNeed>();
  for (const call of FUNCTION_CALLS[fn]) {
    for (const need of PORT_CALL_ROLES[call]) {
      const on = NARROWER_SCOPE[fn]?.[need.on] ?? need.on;
      needs.set(`${need.role} ${on}`, { role: need.role, on });
    }
  }
  return [...needs.values()].filter(
    (need) =>
      !Object.entries(COVERS).some(
        ([wide, narrow]) => narrow === need.role && needs.has(`${wide} ${need.on}`),
      ),
  );
}
