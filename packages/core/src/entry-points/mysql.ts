// The Cloud SQL connector loads only when CLOUD_SQL_INSTANCE asks for it (mysqlConnectionOptions).
export * from "../adapters/mysql/create-mysql-pool";
/** The statement the source adapter streams a day with, for benchmarks that run it on mysql2 alone. */
export { dayRowsQuery } from "../adapters/mysql/day-queries";
export * from "../adapters/mysql/map-mysql-error";
export * from "../adapters/mysql/mysql-account-check";
export * from "../adapters/mysql/mysql-day-deleter";
export * from "../adapters/mysql/mysql-load-probe";
export * from "../adapters/mysql/mysql-partitioned-table";
export * from "../adapters/mysql/mysql-source-database";
export * from "../adapters/mysql/open-mysql-pool";
export * from "../adapters/mysql/quote-identifier";
