import path from "node:path";
import { fileURLToPath } from "node:url";
import type * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { ArchiverAccess } from "./components/archiver-access";
import { ArchiverAlerts } from "./components/archiver-alerts";
import { ArchiverDashboard } from "./components/archiver-dashboard";
import { ArchiverFunctions, type BundleDirectories } from "./components/archiver-functions";
import { ArchiverMetrics } from "./components/archiver-metrics";
import { ArchiverSecrets, type SecretRef } from "./components/archiver-secrets";
import { type DatabaseUserGrants, databaseGrants } from "./components/database-grants";
import { EntryTrigger } from "./components/entry-trigger";
import { MigrationQueue } from "./components/migration-queue";
import { MigrationTopic } from "./components/migration-topic";
import { RedisCache } from "./components/redis-cache";
import { RetentionSchedules } from "./components/retention-schedules";
import { ServiceAccounts } from "./components/service-accounts";
import { VpcAccess } from "./components/vpc-access";
import { Warehouse } from "./components/warehouse";
import type { StackConfig } from "./config/stack-config";

/** What `pulumi stack output` shows: what an operator needs to publish, call and watch. */
export interface ArchiverStackOutputs {
  readonly topicName: pulumi.Output<string>;
  readonly deadLetterTopicName: pulumi.Output<string>;
  readonly entryUrl: pulumi.Output<string>;
  readonly taskHandlerUrl: pulumi.Output<string>;
  /** `{function_url}/loadRedisData` of the spec (the cloudfunctions.net address). */
  readonly loadRedisDataUrl: pulumi.Output<string>;
  readonly queuePath: pulumi.Output<string>;
  /** `project.dataset`, as BigQuery SQL names it. */
  readonly dataset: pulumi.Output<string>;
  /** The MySQL grants each function's database user needs, for an administrator to run (databaseGrants). */
  readonly databaseGrants: readonly DatabaseUserGrants[];
}

/**
 * Where `pnpm build` leaves the bundles, under the Pulumi project's root (the folder of Pulumi.yaml).
 * Not the working directory: Pulumi runs `main` (infra/dist/index.js) with the program's own folder as
 * its working directory, so a path relative to it would look in infra/dist/packages.
 */
export function defaultBundleDirectories(projectDir = projectRoot()): BundleDirectories {
  return {
    entry: path.join(projectDir, "packages/entry/dist"),
    taskHandler: path.join(projectDir, "packages/task-handler/dist"),
    reader: path.join(projectDir, "packages/redis-reader/dist"),
  };
}

/**
 * The root the engine names (`--root-directory`, read by getRootDirectory); a CLI too old to name it
 * leaves a placeholder, and then the root is two folders above the program file (infra/dist/index.js).
 */
export function projectRoot(programFile = fileURLToPath(import.meta.url)): string {
  const root = pulumi.runtime.getRootDirectory();
  return path.isAbsolute(root) ? root : path.resolve(path.dirname(programFile), "../..");
}

/** The whole deployment of one environment, built from its checked configuration. */
export function createArchiverStack(config: StackConfig, bundles: BundleDirectories): ArchiverStackOutputs {
  const { project, region } = config;

  const accounts = new ServiceAccounts("accounts", { project });
  const messages = new MigrationTopic("messages", { project });
  const queue = new MigrationQueue("queue", { project, location: region, settings: config.queue });
  const redis = new RedisCache("redis", {
    project,
    region,
    network: config.network.network,
    ...config.redis,
  });
  const vpc = new VpcAccess("vpc", { project, region, ...config.network });
  const warehouse = new Warehouse("warehouse", {
    project,
    datasetId: config.warehouse.datasetId,
    location: config.warehouse.location,
    extraDatasetIds: config.warehouse.extraDatasets
      .filter((d) => d.project === project)
      .map((d) => d.datasetId),
  });
  const secrets = new ArchiverSecrets("secrets", {
    project,
    mysqlPassword: config.mysql.password,
    redisAuth: redis.authString,
    cleanupReplicaUrls: config.cleanup.replicaUrls,
  });
  const mysqlSecrets: SecretRef[] = secrets.mysqlPassword ? [secrets.mysqlPassword] : [];
  const secretsByFunction = {
    entry: [...mysqlSecrets, secrets.redisAuth],
    // Only cleanup tasks measure replica lag.
    taskHandler: [
      ...mysqlSecrets,
      secrets.redisAuth,
      ...(secrets.cleanupReplicaUrls ? [secrets.cleanupReplicaUrls] : []),
    ],
    reader: [secrets.redisAuth],
  };
  const functions = new ArchiverFunctions("functions", {
    project,
    region,
    bundles,
    accounts,
    secrets: secretsByFunction,
    vpc: vpc.serviceConfig,
    dispatchDeadlineSeconds: config.queue.dispatchDeadlineSeconds,
    env: {
      project,
      region,
      mysqlUrl: config.mysql.url,
      cloudSqlInstance: config.mysql.cloudSqlInstance,
      cloudSqlIamAuth: config.mysql.cloudSqlIamAuth,
      mysqlTlsCa: config.mysql.tlsCa,
      minRetentionDays: config.minRetentionDays,
      redisUrl: redis.url,
      redisCa: redis.caCertificates,
      datasetId: warehouse.dataset.datasetId,
      bigqueryLocation: config.warehouse.location,
      dispatchDeadlineSeconds: config.queue.dispatchDeadlineSeconds,
      maxAttempts: config.queue.maxAttempts,
      timeZone: config.timeZone,
      functionEnv: config.functionEnv,
    },
  });
  const trigger = new EntryTrigger("entry-trigger", {
    topic: messages.topic,
    deadLetterTopic: messages.deadLetterTopic,
    entry: functions.entry,
    pushAccount: accounts.trigger,
    maxDeliveryAttempts: config.maxDeliveryAttempts,
  });
  new ArchiverAccess("access", {
    project,
    region,
    accounts,
    functions,
    queue: queue.queue,
    datasets: [
      { project, datasetId: config.warehouse.datasetId, resource: warehouse.dataset },
      ...config.warehouse.extraDatasets.map((d) => ({
        ...d,
        resource: d.project === project ? warehouse.extraDatasets.get(d.datasetId) : undefined,
      })),
    ],
    readerInvokers: config.readerInvokers,
    publishers: config.publishers,
    topic: messages.topic,
    trigger: { subscription: trigger.subscription, deadLetterTopic: messages.deadLetterTopic },
    cloudSql: config.mysql.cloudSqlInstance
      ? { instance: config.mysql.cloudSqlInstance, iamAuth: config.mysql.cloudSqlIamAuth }
      : undefined,
  });

  // Retention that runs itself: the policies' schedules publish to the topic, and what the
  // functions log becomes metrics, alerts and a dashboard (docs/retention.md).
  new RetentionSchedules("retention", {
    project,
    region,
    policies: config.retention,
    topicId: messages.topic.id,
  });
  const { metrics } = new ArchiverMetrics("metrics", { project, maxAttempts: config.queue.maxAttempts });
  new ArchiverAlerts("alerts", { project, emails: config.alertEmails, policies: config.retention, metrics });
  new ArchiverDashboard("dashboard", { project, metrics });

  const uri = (fn: gcp.cloudfunctionsv2.Function) => fn.serviceConfig.apply((c) => c?.uri ?? "");
  return {
    topicName: messages.topic.name,
    deadLetterTopicName: messages.deadLetterTopic.name,
    entryUrl: uri(functions.entry),
    taskHandlerUrl: uri(functions.taskHandler),
    loadRedisDataUrl: functions.reader.url,
    queuePath: queue.path,
    dataset: pulumi.interpolate`${project}.${warehouse.dataset.datasetId}`,
    databaseGrants: databaseGrants({
      mysqlUrl: config.mysql.url,
      cloudSqlIamAuth: config.mysql.cloudSqlIamAuth,
      functionEnv: config.functionEnv,
    }),
  };
}
