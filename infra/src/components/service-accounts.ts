import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface ServiceAccountsArgs {
  readonly project: string;
  /** Prefix of every account id (6–30 characters in all). @default "archiver" */
  readonly prefix?: string;
}

/**
 * One service account per function, plus the two identities that call
 * functions: the task invoker (the OIDC identity on every Cloud Task) and the
 * trigger (the identity Pub/Sub pushes messages as). No account gets a role
 * here; every grant is in ArchiverAccess.
 */
export class ServiceAccounts extends pulumi.ComponentResource {
  readonly entry: gcp.serviceaccount.Account;
  readonly taskHandler: gcp.serviceaccount.Account;
  readonly reader: gcp.serviceaccount.Account;
  readonly taskInvoker: gcp.serviceaccount.Account;
  readonly trigger: gcp.serviceaccount.Account;

  constructor(name: string, args: ServiceAccountsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ServiceAccounts", name, {}, opts);
    const parent = { parent: this };
    const prefix = args.prefix ?? "archiver";

    this.entry = createAccount("entry", "Runs the archiver entry function (plans days, enqueues tasks)");
    this.taskHandler = createAccount(
      "task-handler",
      "Runs the archiver task handler (copies and cleans days)",
    );
    this.reader = createAccount("reader", "Runs loadRedisData (reads mig_* sets)");
    this.taskInvoker = createAccount(
      "task-invoker",
      "Identity of jobs-migration tasks calling the task handler",
    );
    this.trigger = createAccount("trigger", "Identity of Pub/Sub pushing messages to the entry function");
    this.registerOutputs({});

    function createAccount(id: string, description: string) {
      return new gcp.serviceaccount.Account(
        `${name}-${id}`,
        { project: args.project, accountId: `${prefix}-${id}`, displayName: description },
        parent,
      );
    }
  }
}
