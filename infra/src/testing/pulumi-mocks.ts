import * as pulumi from "@pulumi/pulumi";

/** A resource the program registered, as the engine would have received it. */
export interface RegisteredResource {
  readonly type: string;
  readonly name: string;
  readonly custom: boolean;
  /**
   * The names of the resources the engine must finish before this one: those its inputs come
   * from and those of `dependsOn` (a component stands for its children).
   */
  readonly dependencies: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: resource inputs are untyped JSON from the engine protocol.
  readonly inputs: Record<string, any>;
}

/** Everything a program run under mocks produced: its resources and its resolved stack outputs. */
export interface MockRun {
  readonly resources: readonly RegisteredResource[];
  readonly outputs: Record<string, unknown>;
}

export interface MockRunOptions {
  /** Full keys, e.g. `gcp:project`, `table-archiver:mysqlUrl`. */
  readonly config: Readonly<Record<string, string>>;
  readonly secretKeys?: readonly string[];
  readonly project?: string;
  readonly stack?: string;
}

export const MOCK_PROJECT_NUMBER = "123456789012";

/**
 * Runs `program` inside a Pulumi stack whose engine is Pulumi's mock monitor,
 * then waits until every registration has reached the mocks. The outputs come
 * back resolved (Pulumi awaits them to build the stack's outputs), so a test
 * asserts on plain values, never inside an apply.
 */
export async function runWithMocks(program: () => unknown, options: MockRunOptions): Promise<MockRun> {
  const resources: RegisteredResource[] = [];
  const dependencies = new Map<string, string[]>();
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        resources.push({
          type: args.type,
          name: args.name,
          custom: args.custom ?? true,
          dependencies: dependencies.get(args.name) ?? [],
          inputs: args.inputs,
        });
        const computed = computedState(args.type, args.name, args.inputs);
        const { id = `${args.name}-id`, ...state } = computed;
        return { id: String(id), state: { ...args.inputs, ...state } };
      },
      call(args) {
        // The one lookup the program makes: the project's number (the functions' staging bucket is named by it).
        if (args.token === "gcp:organizations/getProject:getProject")
          return { projectId: args.inputs.projectId, number: MOCK_PROJECT_NUMBER };
        throw new Error(`unexpected call ${args.token}`);
      },
    },
    options.project ?? "table-archiver",
    options.stack ?? "dev",
    false,
  );
  recordDependencies(dependencies);
  pulumi.runtime.setAllConfig({ ...options.config }, [...(options.secretKeys ?? [])]);
  const outputs = (await pulumi.runtime.runInPulumiStack(async () => program())) as Record<string, unknown>;
  await waitForRegistrations();
  return { resources, outputs };
}

/**
 * The mocks' newResource is not told what a resource depends on, but the engine is: the request
 * the SDK sends the (mock) monitor lists it. Records it by resource name, before newResource runs.
 */
function recordDependencies(into: Map<string, string[]>): void {
  interface RegisterRequest {
    getName(): string;
    getDependenciesList(): string[];
  }
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, callback: unknown): unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    // A URN ends in `::<name>`.
    into.set(
      req.getName(),
      req.getDependenciesList().map((urn) => urn.slice(urn.lastIndexOf("::") + 2)),
    );
    return register(req, callback);
  };
}

/** Registrations whose inputs wait on other outputs finish after the stack's outputs resolve. */
async function waitForRegistrations(): Promise<void> {
  const runtime = pulumi.runtime as unknown as { waitForRPCs?: () => Promise<void> };
  if (!runtime.waitForRPCs) throw new Error("@pulumi/pulumi no longer exposes runtime.waitForRPCs");
  await runtime.waitForRPCs();
}

/** The values (and `id`) the provider would compute, shaped like GCP's, so dependent inputs are realistic. */
// biome-ignore lint/suspicious/noExplicitAny: mirrors the untyped engine protocol.
function computedState(type: string, name: string, inputs: Record<string, any>): Record<string, unknown> {
  const project = inputs.project ?? "mock-project";
  switch (type) {
    case "gcp:serviceaccount/account:Account": {
      const email = `${inputs.accountId}@${project}.iam.gserviceaccount.com`;
      return {
        email,
        name: `projects/${project}/serviceAccounts/${email}`,
        member: `serviceAccount:${email}`,
      };
    }
    case "gcp:cloudfunctionsv2/function:Function": {
      const service = String(inputs.name).toLowerCase();
      return {
        url: `https://${inputs.location}-${project}.cloudfunctions.net/${inputs.name}`,
        serviceConfig: {
          ...inputs.serviceConfig,
          uri: `https://${service}-mockhash-${inputs.location}.a.run.app`,
          service: `projects/${project}/locations/${inputs.location}/services/${service}`,
        },
      };
    }
    case "gcp:redis/instance:Instance":
      return {
        host: "10.20.0.3",
        port: 6378,
        authString: "mock-redis-auth",
        serverCaCerts: [{ cert: "-----BEGIN CERTIFICATE-----\nMOCKCA\n-----END CERTIFICATE-----\n" }],
      };
    case "gcp:pubsub/topic:Topic":
      return { id: `projects/${project}/topics/${inputs.name}` };
    case "gcp:pubsub/subscription:Subscription":
      return { id: `projects/${project}/subscriptions/${inputs.name}` };
    case "gcp:secretmanager/secret:Secret":
      return { id: `projects/${project}/secrets/${inputs.secretId}`, secretId: inputs.secretId };
    case "gcp:secretmanager/secretVersion:SecretVersion":
      return { version: "1", name: `${inputs.secret}/versions/1` };
    case "gcp:projects/serviceIdentity:ServiceIdentity": {
      const agent = String(inputs.service).split(".")[0];
      const email = `service-${MOCK_PROJECT_NUMBER}@gcp-sa-${agent}.iam.gserviceaccount.com`;
      return { email, member: `serviceAccount:${email}` };
    }
    case "gcp:vpcaccess/connector:Connector":
      return { id: `projects/${project}/locations/${inputs.region}/connectors/${inputs.name}` };
    case "gcp:artifactregistry/repository:Repository":
      return {
        id: `projects/${project}/locations/${inputs.location}/repositories/${inputs.repositoryId}`,
        name: inputs.repositoryId,
      };
    case "gcp:storage/bucket:Bucket":
      return { name: `${name}-bucket` };
    default:
      return {};
  }
}
