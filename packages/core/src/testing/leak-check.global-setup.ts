import { randomBytes } from "node:crypto";
import { describeLeftovers, findLeftovers, isEmpty, removeLeftovers } from "./leak-check";

/**
 * Vitest global setup of the services project: the proof that tests leave
 * nothing behind in MySQL or Redis. It picks the run's tag (four hex digits
 * that uniqueName puts after its `_`, through ARCHIVER_TEST_RUN) such that no
 * key, database or user holds it yet, so whatever holds it afterwards is this
 * run's, however many other people share the servers. Each test file checks
 * its own names when it ends (leak-check.setup.ts); this teardown sweeps for
 * anything of the run left after every file (a late write, for example).
 * Leftovers are listed, removed, and fail the run. With MySQL or Redis down
 * the check is off and the services tests say why.
 */
export async function setup(): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const tag = randomBytes(2).toString("hex");
    try {
      if (!isEmpty(await findLeftovers(tag))) continue;
    } catch (error) {
      console.warn(`leak check off: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    process.env.ARCHIVER_TEST_RUN = tag;
    return;
  }
}

export async function teardown(): Promise<void> {
  const tag = process.env.ARCHIVER_TEST_RUN;
  if (!tag) return;
  const left = await findLeftovers(tag);
  if (isEmpty(left)) return;
  await removeLeftovers(left);
  throw new Error(
    `the tests left these behind (now removed; every test name carries _${tag}):\n${describeLeftovers(left)}`,
  );
}
