import { accountId } from "./service-accounts";

/** One MySQL user a function logs in as, and the statements that give it exactly what it needs. */
export interface DatabaseUserGrants {
  /** The functions that log in as this user. */
  readonly functions: readonly ("entry" | "taskHandler")[];
  /** 'user'@'%' as GRANT names it. */
  readonly user: string;
  /** Run once on the primary, as an administrator (cloudsqlsuperuser on Cloud SQL). */
  readonly grants: readonly string[];
  /** Run on each replica the replica-lag throttle reads (CLEANUP_REPLICA_URLS); empty without it. */
  readonly onEachReplica: readonly string[];
}

export interface DatabaseGrantsArgs {
  readonly mysqlUrl: string;
  readonly cloudSqlIamAuth: boolean;
  /** The functions' environment from the stack (CLEANUP_MAX_REPLICA_LAG_SECONDS switches the lag throttle on). */
  readonly functionEnv: Readonly<Partial<Record<string, string>>>;
}

/**
 * The database grants of the deployment, as `pulumi stack output databaseGrants` prints them for an
 * administrator to run (the program cannot: it holds no MySQL credentials). The entry function plans:
 * it reads days, their figures and the dry run's, and deletes nothing, so its user holds SELECT only.
 * The task handler copies and cleans, and each cleanup task proves its own account before it deletes:
 * DELETE, TRIGGER to see the table's triggers, PROCESS to read every foreign key from InnoDB's
 * dictionary. Tables of other databases that reference an archived table need SELECT too
 * (`archiver check --table T --cleanup` names them). Without IAM login both functions are mysqlUrl's
 * user, which then needs the task handler's grants.
 */
export function databaseGrants(args: DatabaseGrantsArgs): DatabaseUserGrants[] {
  const url = new URL(args.mysqlUrl);
  const database = `\`${decodeURIComponent(url.pathname.slice(1)).replaceAll("`", "``")}\``;
  const lagThrottle = Number(args.functionEnv.CLEANUP_MAX_REPLICA_LAG_SECONDS ?? 0) > 0;
  const taskHandler = (user: string) => ({
    user,
    grants: [
      `GRANT SELECT, DELETE, TRIGGER ON ${database}.* TO ${user};`,
      `GRANT PROCESS ON *.* TO ${user};`,
    ],
    onEachReplica: lagThrottle ? [`GRANT REPLICATION CLIENT ON *.* TO ${user};`] : [],
  });
  if (!args.cloudSqlIamAuth) {
    return [
      { functions: ["entry", "taskHandler"], ...taskHandler(`'${decodeURIComponent(url.username)}'@'%'`) },
    ];
  }
  const entry = `'${accountId("entry")}'@'%'`;
  return [
    {
      functions: ["entry"],
      user: entry,
      grants: [`GRANT SELECT ON ${database}.* TO ${entry};`],
      onEachReplica: [],
    },
    { functions: ["taskHandler"], ...taskHandler(`'${accountId("taskHandler")}'@'%'`) },
  ];
}
