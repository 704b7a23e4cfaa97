export { createJsonLogger, silentLogger } from "../adapters/logging/json-logger";
