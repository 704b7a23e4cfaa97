import type { Logger } from "@table-archiver/core";
import { badRequest, errorBody, HttpError, toHttpError } from "@table-archiver/redis-reader";
import type { FastifyError, FastifyInstance } from "fastify";

/** Fastify's own refusals, mapped onto the archiver's error codes. */
const FASTIFY_CODES: Record<string, () => HttpError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new HttpError(413, "PAYLOAD_TOO_LARGE", "the body is larger than the 16 KB this endpoint accepts"),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => badRequest("send a JSON body"),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => badRequest("the body is empty; send a JSON body"),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => badRequest("Content-Length does not match the body"),
};

/**
 * Every answer of the local server that is not a success has the shape
 * `{"error":{"code","message"}}`: refusals from the routes,
 * Fastify's own (body too large, malformed JSON, unknown route) and failures
 * (503 when MySQL or Redis is down). Failures are logged; refusals are not.
 */
export function installErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = fromFastify(error) ?? toHttpError(error);
    if (failure.status >= 500) {
      logger.error(`${request.method} ${request.url} failed: ${failure.message}`, {
        code: failure.code,
        error,
      });
    }
    void reply.code(failure.status).headers(failure.headers).send(errorBody(failure.code, failure.message));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody("NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`));
  });
}

function fromFastify(error: FastifyError): HttpError | undefined {
  const mapped = FASTIFY_CODES[error.code];
  if (mapped) return mapped();
  if (error instanceof SyntaxError || error.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return badRequest("the body is not valid JSON");
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new HttpError(error.statusCode, "INVALID_INPUT", error.message);
  }
  return undefined;
}
