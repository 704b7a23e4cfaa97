import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface ServiceAccountsArgs {
  readonly project: string;
}

/** Prefix of every account id (6–30 characters in all). */
const PREFIX = "archiver";

/** Each account: its id after the prefix, and what it is for (its display name). */
const ACCOUNTS = {
  entry: ["entry", "Runs the archiver entry function (plans days, enqueues tasks)"],
  taskHandler: ["task-handler", "Runs the archiver task handler (copies and cleans days)"],
  reader: ["reader", "Runs loadRedisData (reads mig_* sets)"],
  taskInvoker: ["task-invoker", "Identity of jobs-migration tasks calling the task handler"],
  trigger: ["trigger", "Identity of Pub/Sub pushing messages to the entry function"],
  builder: ["builder", "Builds the archiver's functions (Cloud Build)"],
} as const;

type Account = gcp.serviceaccount.Account;

/** An account's id (its email's part before `@`), which is also its MySQL user with IAM database login. */
export const accountId = (key: keyof typeof ACCOUNTS) => `${PREFIX}-${ACCOUNTS[key][0]}`;

/**
 * One service account per function, plus the two identities that call
 * functions: the task invoker (the OIDC identity on every Cloud Task) and the
 * trigger (the identity Pub/Sub pushes messages as); and the builder Cloud
 * Build runs the functions' builds as. No account gets a role here.
 */
export class ServiceAccounts extends pulumi.ComponentResource {
  readonly entry: Account;
  readonly taskHandler: Account;
  readonly reader: Account;
  readonly taskInvoker: Account;
  readonly trigger: Account;
  readonly builder: Account;

  constructor(name: string, args: ServiceAccountsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ServiceAccounts", name, {}, opts);
    const account = (key: keyof typeof ACCOUNTS) => {
      const [id, description] = ACCOUNTS[key];
      return new gcp.serviceaccount.Account(
        `${name}-${id}`,
        { project: args.project, accountId: accountId(key), displayName: description },
        { parent: this },
      );
    };
    this.entry = account("entry");
    this.taskHandler = account("taskHandler");
    this.reader = account("reader");
    this.taskInvoker = account("taskInvoker");
    this.trigger = account("trigger");
    this.builder = account("builder");
    this.registerOutputs({});
  }
}
