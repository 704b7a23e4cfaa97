import { afterAll } from "vitest";
import { describeLeftovers, findLeftovers, isEmpty, removeLeftovers } from "./leak-check";
import { namesMadeHere, testRunTag } from "./test-services";

/**
 * Setup file of the services project: when a test file ends (after its own
 * afterAll hooks), whatever in MySQL or Redis still carries one of the names
 * it made with uniqueName fails that file, is listed, and is removed. Files
 * check only their own names, so files running side by side, and anyone else
 * on the same servers, do not disturb the check.
 */
afterAll(async () => {
  const names = namesMadeHere();
  if (names.length === 0) return;
  const left = await findLeftovers(testRunTag, names).catch(() => undefined);
  // Unreachable services fail the file's own tests already.
  if (left === undefined || isEmpty(left)) return;
  await removeLeftovers(left);
  throw new Error(
    `this test file left these behind in MySQL and Redis (now removed):\n${describeLeftovers(left)}`,
  );
});
