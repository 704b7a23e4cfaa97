import { describe, expect, it } from "vitest";
import { KeyedMutex } from "./keyed-mutex";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("KeyedMutex", () => {
  it("runs tasks under one key one at a time, in call order", async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`${name} start`);
      await tick();
      events.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      mutex.run("a", task("1")),
      mutex.run("a", task("2")),
      mutex.run("a", task("3")),
    ]);
    expect(results).toEqual(["1", "2", "3"]);
    expect(events).toEqual(["1 start", "1 end", "2 start", "2 end", "3 start", "3 end"]);
  });

  it("runs tasks under different keys at the same time", async () => {
    const mutex = new KeyedMutex();
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
    };
    await Promise.all([mutex.run("a", task), mutex.run("b", task), mutex.run("c", task)]);
    expect(most).toBe(3);
  });

  it("releases the key when a task fails", async () => {
    const mutex = new KeyedMutex();
    const failed = mutex.run("a", async () => {
      throw new Error("boom");
    });
    await expect(failed).rejects.toThrow("boom");
    await expect(mutex.run("a", async () => "next")).resolves.toBe("next");
  });
});
