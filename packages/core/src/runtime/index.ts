export { type Adapters, assembleDeps, type DomainDeps, type DomainSettings } from "./assemble-deps";
export { createRuntime, type RuntimeOptions } from "./create-runtime";
export type { Runtime } from "./runtime";
export { closeSharedRuntime, sharedRuntime } from "./shared-runtime";
