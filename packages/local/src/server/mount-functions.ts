import type { Server } from "node:http";
import { getTestServer } from "@google-cloud/functions-framework/testing";
import { messageOf } from "@table-archiver/core";
import { type LoadRedisDataHandler, MAX_READER_BODY_BYTES } from "@table-archiver/redis-reader";
import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";

/**
 * Mounts the reader's handler at `/loadRedisData`, so locally
 * `{function_url}` is `{base_url}`. The handler speaks Node's request and
 * response, so it runs here as it runs under the Functions Framework, on the
 * raw body (16 KB at most: Fastify answers 413 above that) and without the
 * framework's Express stack in the hot path.
 */
export function mountReader(
  app: FastifyInstance,
  handler: LoadRedisDataHandler,
  guard: onRequestAsyncHookHandler,
) {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: MAX_READER_BODY_BYTES },
      (_req, body, done) => done(null, body),
    );
    scope.all("/loadRedisData", { onRequest: guard }, async (request, reply) => {
      reply.hijack();
      const rawBody = Buffer.isBuffer(request.body) ? request.body : undefined;
      await handler({ method: request.method, headers: request.headers, body: rawBody, rawBody }, reply.raw);
    });
  });
}

/**
 * Mounts a function registered with the Functions Framework (`functions.http`
 * or `functions.cloudEvent`) at `path`, served by the framework's own Express
 * app, so it decodes CloudEvents and bodies exactly as it does when deployed.
 * Fastify leaves the body unread for it.
 */
export function mountRegisteredFunction(
  app: FastifyInstance,
  options: { readonly path: string; readonly name: string; readonly guard: onRequestAsyncHookHandler },
): void {
  const framework: Server = getTestServer(options.name);
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null, undefined));
    scope.all(options.path, { onRequest: options.guard }, async (request, reply) => {
      reply.hijack();
      framework.emit("request", request.raw, reply.raw);
    });
  });
}

/** What became of each function the local stack tried to mount. */
export type MountReport = Record<
  string,
  { readonly mounted: true } | { readonly mounted: false; readonly reason: string }
>;

/**
 * Mounts the entry function at `/archiverEntry` and the task handler at
 * `/archiverTaskHandler`, each when its package can be loaded: importing its
 * `./function` entry registers the function with the Functions Framework, as
 * the deployed bundle does (it builds its runtime from the environment on the
 * first call). A package that cannot be loaded is reported, not fatal, so the
 * rest of the stack still starts.
 */
export async function mountArchiverFunctions(
  app: FastifyInstance,
  guard: onRequestAsyncHookHandler,
): Promise<MountReport> {
  const functions = [
    { name: "archiverEntry", path: "/archiverEntry", load: () => import("@table-archiver/entry/function") },
    {
      name: "archiverTaskHandler",
      path: "/archiverTaskHandler",
      load: () => import("@table-archiver/task-handler/function"),
    },
  ];
  const report: MountReport = {};
  for (const fn of functions) {
    try {
      await fn.load();
      mountRegisteredFunction(app, { path: fn.path, name: fn.name, guard });
      report[fn.name] = { mounted: true };
    } catch (error) {
      report[fn.name] = { mounted: false, reason: messageOf(error) };
    }
  }
  return report;
}
