import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import {
  type EnvInputs,
  type FunctionEnv,
  queueFunctionEnv,
  readerEnv,
  withDatabaseUser,
  withoutReplicaThrottle,
} from "../config/function-env";
import type { SecretRef } from "./archiver-secrets";
import { FunctionBuild } from "./function-build";
import { FunctionBundle } from "./function-bundle";
import { accountId, type ServiceAccounts } from "./service-accounts";
import type { VpcServiceConfig } from "./vpc-access";

/** Built bundle directories (dist/ of each function package). */
export interface BundleDirectories {
  readonly entry: string;
  readonly taskHandler: string;
  readonly reader: string;
}

export interface ArchiverFunctionsArgs {
  readonly project: string;
  readonly region: string;
  readonly bundles: BundleDirectories;
  readonly accounts: ServiceAccounts;
  readonly env: EnvInputs;
  /** Secrets each function reads; a function gets no other. */
  readonly secrets: {
    readonly entry: readonly SecretRef[];
    readonly taskHandler: readonly SecretRef[];
    readonly reader: readonly SecretRef[];
  };
  /** How the functions reach MySQL and Memorystore (VpcAccess). */
  readonly vpc: VpcServiceConfig;
  /**
   * Cloud Tasks' dispatch deadline. The task handler's timeout equals it: a
   * shorter timeout would cut a copy Cloud Tasks still waits for, a longer one
   * would let a retry of the same day start while the first attempt still runs.
   */
  readonly dispatchDeadlineSeconds: number;
}

/** The entry function's timeout, the longest Pub/Sub push allows a reply to take (its ack deadline is 600 s). */
const ENTRY_TIMEOUT_SECONDS = 540;

/** Function names: `loadRedisData` is the spec's path (`{function_url}/loadRedisData`). */
const FUNCTION_NAMES = {
  entry: "archiver-entry",
  taskHandler: "archiver-task-handler",
  reader: "loadRedisData",
} as const;

/** Entry points the function packages register with the Functions Framework. */
const ENTRY_POINTS = {
  entry: "archiverEntry",
  taskHandler: "archiverTaskHandler",
  reader: "loadRedisData",
} as const;

/** Each function's short id in the names of its resources, here and in ArchiverAccess. */
export const FUNCTION_IDS = { entry: "entry", taskHandler: "task-handler", reader: "reader" } as const;

interface FunctionSpec {
  readonly key: keyof BundleDirectories;
  readonly account: gcp.serviceaccount.Account;
  readonly env: FunctionEnv;
  readonly secrets: readonly SecretRef[];
  readonly timeoutSeconds: number;
  readonly memory: string;
}

/**
 * The three Cloud Functions (gen2, nodejs22), each from its esbuild bundle,
 * each running as its own service account, none public: every call needs an
 * identity token of a principal ArchiverAccess lets in. Each account's access
 * to its secrets is granted here, before the function that needs it.
 */
export class ArchiverFunctions extends pulumi.ComponentResource {
  readonly bucket: gcp.storage.Bucket;
  readonly entry: gcp.cloudfunctionsv2.Function;
  readonly taskHandler: gcp.cloudfunctionsv2.Function;
  readonly reader: gcp.cloudfunctionsv2.Function;

  constructor(name: string, args: ArchiverFunctionsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverFunctions", name, {}, opts);
    const parent = { parent: this };
    const { accounts, env, secrets } = args;

    const bucket = createSourceBucket();
    this.bucket = bucket;
    const build = new FunctionBuild(
      `${name}-build`,
      { project: args.project, region: args.region, builder: accounts.builder },
      parent,
    );
    this.taskHandler = createFunction({
      key: "taskHandler",
      account: accounts.taskHandler,
      // The Cloud Tasks driver refuses to start without a target, though the task
      // handler never creates tasks; its own address cannot come from its own
      // outputs, so it gets the function's fixed cloudfunctions.net address.
      env: withDatabaseUser(
        queueFunctionEnv(env, {
          handlerUrl: `https://${args.region}-${args.project}.cloudfunctions.net/${FUNCTION_NAMES.taskHandler}`,
          invokerEmail: accounts.taskInvoker.email,
        }),
        env,
        accountId("taskHandler"),
      ),
      secrets: secrets.taskHandler,
      timeoutSeconds: args.dispatchDeadlineSeconds,
      memory: "1Gi",
    });
    this.entry = createFunction({
      key: "entry",
      account: accounts.entry,
      env: withDatabaseUser(
        withoutReplicaThrottle(
          queueFunctionEnv(env, {
            handlerUrl: this.taskHandler.serviceConfig.apply(uriOf),
            invokerEmail: accounts.taskInvoker.email,
          }),
        ),
        env,
        accountId("entry"),
      ),
      secrets: secrets.entry,
      timeoutSeconds: ENTRY_TIMEOUT_SECONDS,
      memory: "512Mi",
    });
    this.reader = createFunction({
      key: "reader",
      account: accounts.reader,
      env: readerEnv(env),
      secrets: secrets.reader,
      timeoutSeconds: 30,
      memory: "256Mi",
    });
    this.registerOutputs({});

    function createSourceBucket() {
      return new gcp.storage.Bucket(
        `${name}-sources`,
        {
          project: args.project,
          location: args.region,
          uniformBucketLevelAccess: true,
          publicAccessPrevention: "enforced",
          forceDestroy: true,
        },
        parent,
      );
    }

    function createFunction(spec: FunctionSpec) {
      const id = FUNCTION_IDS[spec.key];
      const bundle = new FunctionBundle(
        FUNCTION_NAMES[spec.key].toLowerCase(),
        { bucket: bucket.name, directory: args.bundles[spec.key] },
        parent,
      );
      const secretAccess = spec.secrets.map((ref) => grantSecretAccess(id, spec.account, ref));
      return new gcp.cloudfunctionsv2.Function(
        `${name}-${id}`,
        {
          name: FUNCTION_NAMES[spec.key],
          project: args.project,
          location: args.region,
          buildConfig: {
            runtime: "nodejs22",
            entryPoint: ENTRY_POINTS[spec.key],
            ...build.buildConfig,
            source: { storageSource: { bucket: bucket.name, object: bundle.object.name } },
          },
          serviceConfig: {
            serviceAccountEmail: spec.account.email,
            timeoutSeconds: spec.timeoutSeconds,
            availableMemory: spec.memory,
            // Private means IAM: no principal outside ArchiverAccess may invoke. The
            // network path stays open because Pub/Sub push and Cloud Tasks reach
            // the URL from Google's front end and operators call loadRedisData.
            ingressSettings: "ALLOW_ALL",
            allTrafficOnLatestRevision: true,
            environmentVariables: spec.env as Record<string, pulumi.Input<string>>,
            secretEnvironmentVariables: spec.secrets.map((ref) => ({
              key: ref.envName,
              projectId: args.project,
              secret: ref.secret.secretId,
              version: ref.version.version,
            })),
            ...args.vpc,
          },
        },
        // Cloud Run refuses a revision whose account cannot read its secrets, and the build
        // fails until the builder has its roles.
        { ...parent, dependsOn: [...secretAccess, ...build.grants] },
      );
    }

    /**
     * A function's account may read exactly the secrets the function mounts:
     * the grant is made from the same list, so the two cannot drift apart.
     */
    function grantSecretAccess(id: string, account: gcp.serviceaccount.Account, ref: SecretRef) {
      return new gcp.secretmanager.SecretIamMember(
        `${name}-${id}-reads-${ref.envName.toLowerCase().replaceAll("_", "-")}`,
        {
          project: args.project,
          secretId: ref.secret.id,
          role: "roles/secretmanager.secretAccessor",
          member: pulumi.interpolate`serviceAccount:${account.email}`,
        },
        parent,
      );
    }
  }
}

function uriOf(config: { uri?: string } | undefined): string {
  return config?.uri ?? "";
}
