export { createTestAccount, DOCUMENTED_GRANTS, type TestAccount } from "./archiver-account";
export { captureLogLines } from "./captured-log-lines";
export { copyRecordOf } from "./day-record-contract";
export * from "./fakes";
export {
  followPrimary,
  freePort,
  type MariaDbFiles,
  prepareMariaDbFiles,
  stopByPid,
  waitUntilUp,
} from "./mariadb-server";
export * from "./test-runtime";
export * from "./test-services";
