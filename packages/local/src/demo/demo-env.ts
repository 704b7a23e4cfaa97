import { DEMO_DATABASE } from "./demo-table";

/**
 * The demo's configuration. The demo drops and refills its table and resets
 * its warehouse and queue, so it only ever works on its own: the server and
 * credentials may come from MYSQL_URL (or .env), but the database is always
 * archiver_demo, and the warehouse file, the queue prefix and the drivers are
 * always the demo's, whatever the environment says.
 */
export function demoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const url = new URL(env.MYSQL_URL ?? "mysql://root@127.0.0.1:3306");
  url.pathname = `/${DEMO_DATABASE}`;
  return {
    ...env,
    MYSQL_URL: url.toString(),
    DUCKDB_PATH: ".data/demo-warehouse.duckdb",
    LOCAL_QUEUE_PREFIX: "archiver-demo",
    WAREHOUSE: "duckdb",
    QUEUE: "local",
  };
}
