// The archiver's HTTP answers: one status per error code and the error body
// every HTTP surface writes (the task handler, the reader loadRedisData and
// the local server). Transport, not domain: the domain's errors (../errors)
// carry a code and know nothing of HTTP; this maps them to an answer.
export {
  badRequest,
  errorBody,
  forbidden,
  HttpError,
  methodNotAllowed,
  payloadTooLarge,
  toHttpError,
  unauthenticated,
} from "./http-error";
export { HTTP_STATUS_BY_CODE, type HttpErrorCode, httpStatusOf } from "./http-status";
