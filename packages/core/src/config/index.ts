export { configEnvNames, type Env, envSchema } from "./env-schema";
export { type Config, loadConfig } from "./load-config";
