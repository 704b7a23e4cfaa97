import * as pulumi from "@pulumi/pulumi";
import { createArchiverStack, defaultBundleDirectories } from "./archiver-stack";
import { readStackConfig } from "./config/stack-config";

// The Pulumi program. Pulumi.yaml runs its esbuild output (infra/dist/index.js,
// `pnpm build`): TypeScript 7 has no JavaScript API for Pulumi's TypeScript loader.
const config = readStackConfig(new pulumi.Config(), new pulumi.Config("gcp"));
const stack = createArchiverStack(config, defaultBundleDirectories());

export const topicName = stack.topicName;
export const deadLetterTopicName = stack.deadLetterTopicName;
export const entryUrl = stack.entryUrl;
export const taskHandlerUrl = stack.taskHandlerUrl;
export const loadRedisDataUrl = stack.loadRedisDataUrl;
export const queuePath = stack.queuePath;
export const dataset = stack.dataset;
export const databaseGrants = stack.databaseGrants;
