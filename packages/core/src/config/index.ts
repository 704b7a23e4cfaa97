export { configEnvNames, type Env, envSchema, intFrom } from "./env-schema";
export {
  type Config,
  type ConfigParse,
  invalidConfiguration,
  loadConfig,
  parseConfig,
  parseVariables,
  splitList,
} from "./load-config";
