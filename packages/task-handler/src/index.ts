import * as functions from "@google-cloud/functions-framework";
import { sharedRuntime } from "@table-archiver/core/runtime";
import { createTaskHttpHandler } from "./task-http-handler";

export { handleTask, type TaskResult } from "./handle-task";
export {
  logTaskFailure,
  type TaskErrorInfo,
  type TaskFailure,
  taskErrorInfo,
} from "./log-task-failure";
export { createTaskHttpHandler } from "./task-http-handler";

functions.http("archiverTaskHandler", createTaskHttpHandler(sharedRuntime));
