export type { CliIo } from "./cli/cli-io";
export { runCli } from "./cli/run-cli";
export { readStatus, type Status } from "./cli/status-command";
export { type LocalConfig, type LocalSettings, loadLocalConfig } from "./config/load-local-config";
export { localEnvSchema } from "./config/local-env-schema";
export { buildLocalServer } from "./server/build-local-server";
export { unreachableServices } from "./services/check-services";
export { runWorker } from "./worker/run-worker";
