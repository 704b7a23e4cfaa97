export { configEnvNames, type Env, envSchema } from "./env-schema";
export {
  type Config,
  type ConfigParse,
  configSchema,
  invalidConfiguration,
  loadConfig,
  parseConfig,
  parseVariables,
  splitList,
} from "./load-config";
