import { TransientError } from "@table-archiver/core";
import { describe, expect, it } from "vitest";
import { createSetReader, type SetSource } from "./set-reader";

/** A set source whose SMEMBERS calls stay open until the test answers them. */
function controlledSource() {
  const calls: { key: string; answer: (members: string[]) => void; fail: (error: Error) => void }[] = [];
  const source: SetSource = {
    eval: (_script, _keys, key) =>
      new Promise((resolve, fail) => {
        calls.push({ key, answer: (members) => resolve(JSON.stringify(members)), fail });
      }),
  };
  return { source, calls };
}

const text = async (body: Promise<Buffer>) => JSON.parse((await body).toString()) as unknown;
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("createSetReader", () => {
  it("answers the members sorted ascending", async () => {
    const read = createSetReader(() => ({
      eval: async () => '["2020-01-03","2019-12-31","2020-01-01"]',
    }));
    expect(await text(read("mig_t"))).toEqual(["2019-12-31", "2020-01-01", "2020-01-03"]);
  });

  it("never answers a request from a read that started before it arrived", async () => {
    const { source, calls } = controlledSource();
    const read = createSetReader(() => source);
    const first = read("mig_t");
    await flush();
    // A day is recorded while the first read is in flight; requests that
    // arrive afterwards must see it.
    const second = read("mig_t");
    const third = read("mig_t");
    expect(calls).toHaveLength(1);
    calls[0]?.answer(["2020-01-01"]);
    expect(await text(first)).toEqual(["2020-01-01"]);
    await flush();
    expect(calls).toHaveLength(2);
    calls[1]?.answer(["2020-01-01", "2020-01-02"]);
    expect(await text(second)).toEqual(["2020-01-01", "2020-01-02"]);
    expect(await text(third)).toEqual(["2020-01-01", "2020-01-02"]);
    expect(calls).toHaveLength(2);
  });

  it("rebuilds the answer when Redis returns other members, never serving the previous one", async () => {
    const replies = [
      '["2020-01-02","2020-01-01"]',
      '["2020-01-02","2020-01-01"]',
      '["2020-01-03","2020-01-01"]',
    ];
    const read = createSetReader(() => ({ eval: async () => replies.shift() }));
    const first = await read("mig_t");
    expect(await text(Promise.resolve(first))).toEqual(["2020-01-01", "2020-01-02"]);
    expect(await text(read("mig_t"))).toEqual(["2020-01-01", "2020-01-02"]);
    expect(await text(read("mig_t"))).toEqual(["2020-01-01", "2020-01-03"]);
  });

  it("reads different keys independently", async () => {
    const { source, calls } = controlledSource();
    const read = createSetReader(() => source);
    const a = read("mig_a");
    const b = read("mig_b");
    await flush();
    expect(calls.map((c) => c.key)).toEqual(["mig_a", "mig_b"]);
    calls[1]?.answer(["2021-01-01"]);
    calls[0]?.answer(["2020-01-01"]);
    expect([await text(a), await text(b)]).toEqual([["2020-01-01"], ["2021-01-01"]]);
  });

  it("turns a Redis failure into a TransientError, and the next request reads again", async () => {
    const { source, calls } = controlledSource();
    const read = createSetReader(() => source);
    const failed = read("mig_t");
    await flush();
    calls[0]?.fail(new Error("connect ECONNREFUSED"));
    await expect(failed).rejects.toBeInstanceOf(TransientError);
    const retried = read("mig_t");
    await flush();
    calls[1]?.answer([]);
    expect(await text(retried)).toEqual([]);
  });

  it("gives up after the time-out with a TransientError", async () => {
    const { source } = controlledSource();
    const read = createSetReader(() => source, { timeoutMs: 50 });
    const started = Date.now();
    await expect(read("mig_t")).rejects.toThrow(/did not answer within 50 ms/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers a key of another type with a non-retryable error", async () => {
    const read = createSetReader(() => ({
      eval: async () => {
        throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value script: 1a2b");
      },
    }));
    await expect(read("mig_t")).rejects.toMatchObject({ status: 500, code: "NOT_A_SET" });
  });
});
