import { badRequest, errorBody, HttpError, toHttpError } from "@table-archiver/core/http";
import type { Logger } from "@table-archiver/core/ports";
import type { FastifyError, FastifyInstance } from "fastify";

/** Fastify's own refusals, mapped onto the archiver's error codes. */
const FASTIFY_CODES: Record<string, () => HttpError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new HttpError("PAYLOAD_TOO_LARGE", "the body is larger than the 16 KB this endpoint accepts"),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => badRequest("send a JSON body"),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => badRequest("the body is empty; send a JSON body"),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => badRequest("Content-Length does not match the body"),
};

/**
 * Every answer of the local server that is not a success has the shape
 * `{"error":{"code","message"}}` and the status of its code (toHttpError, the
 * mapping the functions use): refusals from the routes, Fastify's own (body
 * too large, malformed JSON, unknown route) and failures (503 when MySQL or
 * Redis is down). Failures are logged; refusals are not.
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
    const missing = new HttpError("NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`);
    void reply.code(missing.status).send(errorBody(missing.code, missing.message));
  });
}

/** Fastify's refusals of a request (its 4xx) are INVALID_INPUT, so 400 like every other malformed request. */
function fromFastify(error: FastifyError): HttpError | undefined {
  const mapped = FASTIFY_CODES[error.code];
  if (mapped) return mapped();
  if (error instanceof SyntaxError || error.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return badRequest("the body is not valid JSON");
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return badRequest(error.message);
  }
  return undefined;
}
