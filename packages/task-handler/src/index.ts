// The task handler's code, without the Cloud Function: ./function.ts
// registers `archiverTaskHandler`. Importing this barrel has no side effect.
export { handleTask, type TaskResult } from "./handle-task";
export { type DeadlineTimer, deadlineMarginMs } from "./last-attempt-deadline";
export {
  logTaskFailure,
  type TaskErrorInfo,
  type TaskFailure,
  taskErrorInfo,
} from "./log-task-failure";
export { countTaskEnd, endingOf, taskEnded } from "./task-ended";
export { createTaskHttpHandler, type TaskHttpHandlerOptions } from "./task-http-handler";
