export type { Status } from "./cli/status-command";
export { type LocalConfig, type LocalSettings, loadLocalConfig } from "./config/load-local-config";
export { buildLocalServer } from "./server/build-local-server";
