// `@table-archiver/local/worker`: the local worker and its schedules alone, as
// `archiver worker` loads them, without the local HTTP server (fastify and the
// Functions Framework) that the package's main entry also exports. What loads
// the worker this way holds only the code the worker runs: 15-29 MB less at
// start than through the main entry, on this machine.
export { readPolicyFile } from "./schedules/policy-file";
export { startSchedules } from "./schedules/run-schedules";
export { runWorker } from "./worker/run-worker";
