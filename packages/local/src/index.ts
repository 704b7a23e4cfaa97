export type { CliIo } from "./cli/cli-io";
export { runCli } from "./cli/run-cli";
export { readStatus, type Status } from "./cli/status-command";
export { unreachableServices } from "./services/check-services";
export { runWorker } from "./worker/run-worker";
