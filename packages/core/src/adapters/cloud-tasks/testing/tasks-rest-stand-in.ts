import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Client } from "google-auth-library";
import type { CloudTasksClientOptions } from "../cloud-tasks-queue";

export interface RecordedTasksRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** A task as the REST API writes it (bytes in base64, durations as `"600s"`). */
export interface RestTask {
  readonly name: string;
  readonly httpRequest?: {
    readonly url?: string;
    readonly httpMethod?: string | number;
    readonly headers?: Record<string, string>;
    readonly body?: string;
    readonly oidcToken?: { readonly serviceAccountEmail?: string; readonly audience?: string };
  };
  readonly dispatchDeadline?: string;
}

export interface CloudTasksStandIn {
  /** Host and port for the client: `{ apiEndpoint: "127.0.0.1", port, protocol: "http", fallback: true }`. */
  readonly port: number;
  readonly requests: RecordedTasksRequest[];
  /** Live tasks by full name. */
  readonly tasks: Map<string, RestTask>;
  /** The queue's retry config as getQueue returns it. */
  retryConfig: Record<string, unknown>;
  /** Runs a task to its end: it leaves the queue, and its name stays taken (Cloud Tasks' tombstone). */
  finish(name: string): void;
  /** The next request matching `method` and `path` gets this HTTP status and gRPC status name. */
  failNext(method: string, path: RegExp, httpStatus: number, status: string): void;
  close(): Promise<void>;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

const error = (code: number, status: string, message: string): Reply => ({
  status: code,
  body: { error: { code, message, status } },
});

/**
 * A local HTTP stand-in for the Cloud Tasks REST API (v2 tasks, v2beta3
 * getQueue) serving one queue, `projects/<project>/locations/<location>/queues/jobs-migration`.
 * The real client library reaches it through its REST transport; it records
 * each request, keeps live tasks and the names of finished ones (so a create
 * with a used name answers ALREADY_EXISTS, as Cloud Tasks does), and plays
 * back errors. It checks the adapter's requests; it is not Cloud Tasks.
 */
export async function startCloudTasksStandIn(project: string, location: string): Promise<CloudTasksStandIn> {
  const queue = `projects/${project}/locations/${location}/queues/jobs-migration`;
  const requests: RecordedTasksRequest[] = [];
  const tasks = new Map<string, RestTask>();
  const finished = new Set<string>();
  const faults: { method: string; path: RegExp; reply: Reply }[] = [];
  const standIn = {
    retryConfig: {
      maxAttempts: 5,
      maxRetryDuration: "3600s",
      minBackoff: "10s",
      maxBackoff: "300s",
      maxDoublings: 4,
    },
  };

  function route(method: string, path: string, query: Record<string, string>, body: unknown): Reply {
    const match =
      /^\/(v2|v2beta3)\/(projects\/[^/]+\/locations\/[^/]+\/queues\/[^/]+)(\/tasks(?:\/([^/]+))?)?$/.exec(
        path,
      );
    if (!match || match[2] !== queue) return error(404, "NOT_FOUND", `Queue does not exist: ${path}`);
    const [, version, , tasksPart, taskId] = match;
    if (!tasksPart && method === "GET") {
      const fields =
        query.readMask === "stats" ? { stats: statsOf(tasks.size) } : { retryConfig: standIn.retryConfig };
      return { status: 200, body: { name: queue, state: "RUNNING", ...fields } };
    }
    if (version !== "v2" || !tasksPart) return error(404, "NOT_FOUND", `no route ${method} ${path}`);
    if (taskId && method === "GET") {
      const task = tasks.get(`${queue}/tasks/${taskId}`);
      return task ? { status: 200, body: task } : error(404, "NOT_FOUND", "The task no longer exists");
    }
    if (!taskId && method === "POST") {
      const task = (body as { task?: RestTask } | undefined)?.task;
      if (!task?.name?.startsWith(`${queue}/tasks/`)) return error(400, "INVALID_ARGUMENT", "bad task name");
      if (tasks.has(task.name) || finished.has(task.name)) {
        return error(409, "ALREADY_EXISTS", "Requested entity already exists");
      }
      tasks.set(task.name, task);
      return { status: 200, body: { ...task, createTime: new Date().toISOString(), view: "BASIC" } };
    }
    return error(405, "UNIMPLEMENTED", `${method} ${path} is not supported`);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const method = request.method ?? "GET";
    const path = decodeURIComponent(url.pathname);
    const query = Object.fromEntries(url.searchParams);
    readJson(request).then((body) => {
      requests.push({ method, path, query, authorization: request.headers.authorization, body });
      const index = faults.findIndex((f) => f.method === method && f.path.test(path));
      const fault = index >= 0 ? faults.splice(index, 1)[0] : undefined;
      send(response, fault?.reply ?? route(method, path, query, body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return Object.assign(standIn, {
    port: (server.address() as AddressInfo).port,
    requests,
    tasks,
    finish(name: string) {
      tasks.delete(name);
      finished.add(name);
    },
    failNext(method: string, path: RegExp, httpStatus: number, status: string) {
      faults.push({ method, path, reply: error(httpStatus, status, `${status} from the stand-in`) });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** proto3 JSON leaves zero out, so an empty queue's stats have no tasksCount. */
function statsOf(count: number): Record<string, string> {
  return count === 0 ? {} : { tasksCount: String(count) };
}

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text === "" ? undefined : JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

function send(response: ServerResponse, reply: Reply): void {
  response
    .writeHead(reply.status, { "content-type": "application/json; charset=UTF-8" })
    .end(JSON.stringify(reply.body));
}

/** The bearer token stand-in clients send. */
export const TASKS_STAND_IN_TOKEN = "tasks-stand-in-token";

/** Client options that point the real Cloud Tasks client at a stand-in over REST, with a fixed token. */
export function standInTasksClientOptions(port: number): CloudTasksClientOptions {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: TASKS_STAND_IN_TOKEN, expiry_date: Date.now() + 24 * 3_600_000 });
  return { apiEndpoint: "127.0.0.1", port, protocol: "http", fallback: true, authClient };
}
