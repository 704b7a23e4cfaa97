import { describe, expect, it } from "vitest";
import { isLastAttempt } from "./last-attempt";

const attempt = (retryCount: number | undefined) => ({
  retryCount,
  executionCount: undefined,
  taskName: "t",
  queueName: "jobs-migration",
});

describe("isLastAttempt", () => {
  it("is the attempt whose number (retries + 1) reaches the queue's maxAttempts", () => {
    expect([0, 1, 2, 3].map((retries) => isLastAttempt(attempt(retries), 3))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(isLastAttempt(attempt(0), 1)).toBe(true);
  });

  it("is never known without the count, without maxAttempts, or when retries are unlimited (-1)", () => {
    expect(isLastAttempt(attempt(undefined), 3)).toBe(false);
    expect(isLastAttempt(attempt(99), undefined)).toBe(false);
    expect(isLastAttempt(attempt(999), -1)).toBe(false);
  });
});
