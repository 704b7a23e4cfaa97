// The reader's code, without the Cloud Function: ./function.ts registers
// `loadRedisData`. Importing this barrel has no side effect.
export {
  createLoadRedisDataHandler,
  type LoadRedisDataHandler,
  type LoadRedisDataOptions,
} from "./create-load-redis-data-handler";
export { MAX_READER_BODY_BYTES, type ReaderRequest } from "./parse-reader-request";
