import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { type ArchiverFunctions, FUNCTION_IDS } from "./archiver-functions";
import { type FunctionKey, type RoleNeed, rolesOf } from "./function-access";
import type { ServiceAccounts } from "./service-accounts";

/** A BigQuery dataset a grant is made on; `resource` when the stack creates it (the grant then waits for it). */
export interface DatasetRef {
  readonly project: string;
  readonly datasetId: string;
  readonly resource?: gcp.bigquery.Dataset;
}

export interface ArchiverAccessArgs {
  readonly project: string;
  readonly region: string;
  readonly accounts: ServiceAccounts;
  readonly functions: ArchiverFunctions;
  readonly queue: gcp.cloudtasks.Queue;
  /** Every dataset the functions read or write: the stack's own and those of `extraDatasets`. */
  readonly datasets: readonly DatasetRef[];
  /** IAM principals allowed to call loadRedisData. */
  readonly readerInvokers: readonly string[];
  /** The entry function's push subscription and its dead-letter topic. */
  readonly trigger: {
    readonly subscription: gcp.pubsub.Subscription;
    readonly deadLetterTopic: gcp.pubsub.Topic;
  };
  /** IAM principals allowed to publish to the messages topic (a cleanup message deletes rows). */
  readonly publishers: readonly string[];
  readonly topic: gcp.pubsub.Topic;
  /**
   * When the source is Cloud SQL through the connector (`project:region:instance`): the functions
   * that open MySQL need to connect, on the instance's project, which need not be the stack's.
   */
  readonly cloudSql?: { readonly instance: string; readonly iamAuth: boolean } | undefined;
}

/**
 * The deployment's IAM grants (secret access excepted: ArchiverFunctions grants
 * it next to the secrets each function mounts), each on the narrowest resource
 * its role can be granted on. A function's account gets exactly the roles of the
 * calls its code makes (FUNCTION_CALLS in function-access.ts). Additive members only (never a binding
 * or policy that would replace what others granted); nothing grants allUsers or
 * allAuthenticatedUsers.
 */
export class ArchiverAccess extends pulumi.ComponentResource {
  constructor(name: string, args: ArchiverAccessArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverAccess", name, {}, opts);
    const parent = { parent: this };
    const { accounts, functions, project, region } = args;
    const sa = (account: gcp.serviceaccount.Account) => pulumi.interpolate`serviceAccount:${account.email}`;
    // Pub/Sub's service agent exists only once something asked for it: in a brand-new
    // project nothing has, and a grant to it would fail. ServiceIdentity creates it.
    const pubsubAgent = new gcp.projects.ServiceIdentity(
      `${name}-pubsub-agent`,
      { project, service: "pubsub.googleapis.com" },
      parent,
    ).member;

    // Each function's account: the roles its calls need (function-access.ts), each on its narrowest resource.
    for (const fn of ["entry", "taskHandler", "reader"] as const) {
      for (const need of rolesOf(fn)) grant(fn, need);
    }

    // The task invoker may invoke the task handler, and only it.
    invoke("invoker-calls-task-handler", functions.taskHandler, sa(accounts.taskInvoker));

    // Configured principals may invoke the reader; the trigger's account may invoke the entry.
    for (const [index, principal] of args.readerInvokers.entries()) {
      invoke(`reader-invoker-${index}`, functions.reader, principal);
    }
    invoke("trigger-calls-entry", functions.entry, sa(accounts.trigger));

    // Publishing is the power to delete (a cleanup message): named principals, on this topic only.
    for (const [index, principal] of args.publishers.entries()) {
      new gcp.pubsub.TopicIAMMember(
        `${name}-publisher-${index}`,
        { project, topic: args.topic.name, role: "roles/pubsub.publisher", member: principal },
        parent,
      );
    }

    // Pub/Sub signs its pushes with the trigger's identity: its agent mints that account's
    // tokens (projects created before April 2021 do not grant it this on their own).
    onServiceAccount(
      "pubsub-signs-as-trigger",
      accounts.trigger,
      "roles/iam.serviceAccountTokenCreator",
      pubsubAgent,
    );

    // Dead-lettering: Pub/Sub's service agent must publish to the dead-letter
    // topic and acknowledge the message it moved there.
    new gcp.pubsub.TopicIAMMember(
      `${name}-pubsub-dead-letter-publish`,
      {
        project,
        topic: args.trigger.deadLetterTopic.name,
        role: "roles/pubsub.publisher",
        member: pubsubAgent,
      },
      parent,
    );
    new gcp.pubsub.SubscriptionIAMMember(
      `${name}-pubsub-entry-ack`,
      {
        project,
        subscription: args.trigger.subscription.name,
        role: "roles/pubsub.subscriber",
        member: pubsubAgent,
      },
      parent,
    );

    // Cloud SQL connector: connect (and log in as the service account with IAM database
    // authentication), granted on the instance's project and narrowed to the instance.
    if (args.cloudSql) {
      const { project: sqlProject, condition } = onInstance(args.cloudSql.instance);
      const onSql = (id: string, role: string, member: pulumi.Input<string>) =>
        new gcp.projects.IAMMember(`${name}-${id}`, { project: sqlProject, role, member, condition }, parent);
      for (const fn of ["entry", "taskHandler"] as const) {
        const id = FUNCTION_IDS[fn];
        const member = sa(accounts[fn]);
        onSql(`${id}-cloudsql-client`, "roles/cloudsql.client", member);
        if (args.cloudSql.iamAuth) onSql(`${id}-cloudsql-user`, "roles/cloudsql.instanceUser", member);
      }
    }
    this.registerOutputs({});

    function grant(fn: FunctionKey, { role, on }: RoleNeed) {
      const member = sa(accounts[fn]);
      const id = `${FUNCTION_IDS[fn]}-${role.replace("roles/", "").replaceAll(".", "-")}`;
      switch (on) {
        case "queue":
          return onQueue(id, role, member);
        case "taskInvoker":
          return onServiceAccount(id, accounts.taskInvoker, role, member);
        case "project":
          return onProject(id, role, member);
        case "datasets":
        case "projectDatasets":
          for (const dataset of args.datasets) {
            if (on === "projectDatasets" && dataset.project !== project) continue;
            new gcp.bigquery.DatasetIamMember(
              `${name}-${id}-${dataset.project}-${dataset.datasetId}`,
              {
                project: dataset.project,
                datasetId: dataset.resource?.datasetId ?? dataset.datasetId,
                role,
                member,
              },
              parent,
            );
          }
      }
    }

    function onQueue(id: string, role: string, member: pulumi.Input<string>) {
      new gcp.cloudtasks.QueueIamMember(
        `${name}-${id}`,
        { project, location: region, name: args.queue.name, role, member },
        parent,
      );
    }

    function onServiceAccount(
      id: string,
      target: gcp.serviceaccount.Account,
      role: string,
      member: pulumi.Input<string>,
    ) {
      new gcp.serviceaccount.IAMMember(
        `${name}-${id}`,
        { serviceAccountId: target.name, role, member },
        parent,
      );
    }

    function onProject(id: string, role: string, member: pulumi.Input<string>) {
      new gcp.projects.IAMMember(`${name}-${id}`, { project, role, member }, parent);
    }

    /** Gen2 functions are Cloud Run services: invoking one is run.invoker on its service. */
    function invoke(id: string, fn: gcp.cloudfunctionsv2.Function, member: pulumi.Input<string>) {
      new gcp.cloudrunv2.ServiceIamMember(
        `${name}-${id}`,
        {
          project,
          location: region,
          name: fn.serviceConfig.apply((config) => config?.service ?? ""),
          role: "roles/run.invoker",
          member,
        },
        parent,
      );
    }
  }
}

/**
 * `project:region:instance` (the project may be domain-scoped, `example.com:shop`): the project to
 * grant on and the IAM condition that narrows a grant to the instance, as Cloud SQL names it.
 */
export function onInstance(connectionName: string) {
  const parts = connectionName.split(":");
  const instance = parts.at(-1) ?? "";
  const project = parts.slice(0, -2).join(":");
  return {
    project,
    condition: {
      title: `Cloud SQL instance ${instance} only`,
      description: `The archiver's source, ${connectionName}`,
      expression: `resource.name == "projects/${project}/instances/${instance}" && resource.type == "sqladmin.googleapis.com/Instance"`,
    },
  };
}
