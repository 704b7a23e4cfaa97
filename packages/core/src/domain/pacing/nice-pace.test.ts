import { describe, expect, it } from "vitest";
import { createNicePace, paceBatches } from "./nice-pace";

/** A clock that only moves when the pace sleeps or a test says so. */
function fakeTime() {
  let now = 0;
  const slept: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
    slept,
  };
}

describe("createNicePace", () => {
  it("rests ratio × the work's duration before the next work", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 1.5, sleep: time.sleep, now: time.now });
    expect(await pace.rest()).toBe(0);
    pace.worked(40);
    expect(await pace.rest()).toBe(60);
    expect(await pace.rest()).toBe(0);
    expect(time.slept).toEqual([60]);
  });

  it("counts time already passed towards the rest", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 1, sleep: time.sleep, now: time.now });
    pace.worked(100);
    time.advance(70);
    expect(await pace.rest()).toBe(30);
    pace.worked(10);
    time.advance(50);
    expect(await pace.rest()).toBe(0);
  });

  it("never rests at ratio 0", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 0, sleep: time.sleep, now: time.now });
    pace.worked(1_000);
    expect(await pace.rest()).toBe(0);
    expect(time.slept).toEqual([]);
  });
});

describe("paceBatches", () => {
  it("rests after each batch in proportion to the time the batch took to arrive", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 1, sleep: time.sleep, now: time.now });
    async function* source() {
      for (const ms of [10, 30, 5]) {
        time.advance(ms);
        yield ms;
      }
    }
    const seen: number[] = [];
    for await (const batch of paceBatches(source(), pace)) seen.push(batch);
    expect(seen).toEqual([10, 30, 5]);
    expect(time.slept).toEqual([10, 30, 5]);
  });

  it("counts the consumer's time in the batch's work: the source reads ahead meanwhile", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 0.5, sleep: time.sleep, now: time.now });
    async function* source() {
      time.advance(4);
      yield "a";
      time.advance(4);
      yield "b";
    }
    for await (const _ of paceBatches(source(), pace)) time.advance(16);
    expect(time.slept).toEqual([10, 10]);
  });

  it("closes the source when the consumer stops early", async () => {
    const time = fakeTime();
    const pace = createNicePace({ ratio: 1, sleep: time.sleep, now: time.now });
    let closed = false;
    async function* source() {
      try {
        for (;;) yield 1;
      } finally {
        closed = true;
      }
    }
    for await (const _ of paceBatches(source(), pace)) break;
    expect(closed).toBe(true);
  });
});
