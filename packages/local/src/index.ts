export type { Status } from "./cli/status-command";
export { type LocalConfig, type LocalSettings, loadLocalConfig } from "./config/load-local-config";
export { readPolicyFile } from "./schedules/policy-file";
export { startSchedules } from "./schedules/run-schedules";
export { buildLocalServer } from "./server/build-local-server";
export { runWorker } from "./worker/run-worker";
