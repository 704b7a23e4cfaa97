export * from "../adapters/redis/bullmq-connection";
export * from "../adapters/redis/create-redis-client";
export * from "../adapters/redis/map-redis-error";
export * from "../adapters/redis/redis-cleanup-state";
export * from "../adapters/redis/redis-migration-ledger";
export * from "../adapters/redis/redis-run-history";
