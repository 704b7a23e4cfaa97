import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface FunctionBuildArgs {
  readonly project: string;
  readonly region: string;
  /** The account Cloud Build runs the functions' builds as. */
  readonly builder: gcp.serviceaccount.Account;
}

/**
 * What Cloud Build needs to build the gen2 functions, as an account of the
 * program's own. Without `buildConfig.serviceAccount`, builds run as the
 * Compute Engine default account, which has no role at all in projects where
 * the organisation policy iam.automaticIamGrantsForDefaultServiceAccounts is
 * enforced (the default for organisations created since mid-2024), so the
 * first deploy would fail in the build. The images go to a repository of the
 * program's, so the writer role is granted on it alone, not on the project.
 */
export class FunctionBuild extends pulumi.ComponentResource {
  readonly repository: gcp.artifactregistry.Repository;
  /** The fields every function's buildConfig takes from here. */
  readonly buildConfig: { serviceAccount: pulumi.Output<string>; dockerRepository: pulumi.Output<string> };
  /** The builder's grants: a function is created only after them, or its first build fails. */
  readonly grants: readonly pulumi.Resource[];

  constructor(name: string, args: FunctionBuildArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:FunctionBuild", name, {}, opts);
    const parent = { parent: this };
    const { project, builder } = args;
    const member = pulumi.interpolate`serviceAccount:${builder.email}`;

    this.repository = new gcp.artifactregistry.Repository(
      `${name}-images`,
      {
        project,
        location: args.region,
        repositoryId: "archiver-functions",
        format: "DOCKER",
        description: "Images Cloud Build makes of the archiver's functions.",
      },
      parent,
    );
    this.grants = [
      // Build logs go to Cloud Logging; the role is granted per project only.
      new gcp.projects.IAMMember(
        `${name}-builder-logs`,
        { project, role: "roles/logging.logWriter", member },
        parent,
      ),
      // Cloud Functions copies the source object into its own staging bucket
      // (gcf-v2-sources-<number>-<region>), which it creates itself on the first
      // deploy, and the build reads it from there: no bucket of the program's to
      // grant on, so the grant is the project's, narrowed by a condition to that
      // bucket. Unconditioned, a build (which runs install scripts) could read
      // every object of the project.
      new gcp.projects.IAMMember(
        `${name}-builder-sources`,
        {
          project,
          role: "roles/storage.objectViewer",
          member,
          condition: sourcesBucketOnly(stagingBucket(project, args.region)),
        },
        parent,
      ),
      new gcp.artifactregistry.RepositoryIamMember(
        `${name}-builder-images`,
        {
          project,
          location: args.region,
          repository: this.repository.name,
          role: "roles/artifactregistry.writer",
          member,
        },
        parent,
      ),
    ];
    this.buildConfig = { serviceAccount: builder.name, dockerRepository: this.repository.id };
    this.registerOutputs({ repository: this.repository.id });
  }
}

/** The bucket Cloud Functions (gen2) stages a region's function sources in, named by the project's number. */
function stagingBucket(project: string, region: string): pulumi.Output<string> {
  const { number } = gcp.organizations.getProjectOutput({ projectId: project });
  return pulumi.interpolate`gcf-v2-sources-${number}-${region}`;
}

/**
 * The bucket itself (objects.list is checked on the bucket) and its objects
 * (projects/_/buckets/<bucket>/objects/<name>); with a customer-managed key
 * the bucket's name ends in -<key hash>. The dash keeps europe-west1's
 * condition from matching europe-west10's bucket.
 */
function sourcesBucketOnly(bucket: pulumi.Input<string>) {
  const name = pulumi.interpolate`projects/_/buckets/${bucket}`;
  return {
    title: "function sources only",
    description: "Cloud Functions' staging bucket of the function sources",
    expression: pulumi.interpolate`resource.name == "${name}" || resource.name.startsWith("${name}/") || resource.name.startsWith("${name}-")`,
  };
}
