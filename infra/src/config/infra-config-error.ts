import * as pulumi from "@pulumi/pulumi";

/**
 * The one error the program throws at an operator: the stack's configuration
 * (or a missing build) cannot produce a working deployment. The message says
 * what to run to fix it. A RunError, so the Pulumi CLI prints the message
 * without a stack trace.
 */
export class InfraConfigError extends pulumi.RunError {
  override readonly name = "InfraConfigError";
  readonly code = "INFRA_CONFIG";
}
