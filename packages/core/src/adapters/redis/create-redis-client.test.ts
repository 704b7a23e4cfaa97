import { describe, expect, it } from "vitest";
import { bullmqConnection } from "./bullmq-connection";
import { redisConnectionOptions } from "./create-redis-client";

describe("redisConnectionOptions", () => {
  it("reads host, port and database from REDIS_URL", () => {
    const options = redisConnectionOptions({ url: "redis://cache.internal:6380/3", auth: undefined });
    expect(options).toMatchObject({ host: "cache.internal", port: 6380, db: 3 });
    expect(options.password).toBeUndefined();
    expect(options.tls).toBeUndefined();
  });

  it("defaults to port 6379 and database 0", () => {
    expect(redisConnectionOptions({ url: "redis://localhost", auth: undefined })).toMatchObject({
      host: "localhost",
      port: 6379,
      db: 0,
    });
  });

  it("takes the password from the URL, decoded", () => {
    const options = redisConnectionOptions({ url: "redis://app:p%40ss@localhost:6379", auth: undefined });
    expect(options).toMatchObject({ username: "app", password: "p@ss" });
  });

  it("lets REDIS_AUTH replace the URL's password", () => {
    const options = redisConnectionOptions({ url: "redis://:old@localhost:6379", auth: "from-secret" });
    expect(options.password).toBe("from-secret");
  });

  it("turns TLS on for rediss://", () => {
    const options = redisConnectionOptions({ url: "rediss://10.0.0.5:6378", auth: "x" });
    expect(options.tls).toEqual({ servername: "10.0.0.5" });
    expect(options.port).toBe(6378);
  });

  it("trusts REDIS_TLS_CA for rediss:// only", () => {
    const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    expect(redisConnectionOptions({ url: "rediss://10.0.0.5:6378", auth: undefined, tlsCa: ca }).tls).toEqual(
      {
        servername: "10.0.0.5",
        ca,
      },
    );
    expect(
      redisConnectionOptions({ url: "redis://10.0.0.5", auth: undefined, tlsCa: ca }).tls,
    ).toBeUndefined();
  });
});

describe("bullmqConnection", () => {
  const settings = { url: "redis://localhost:6379", auth: undefined };

  it("lets a producer fail fast", () => {
    const options = bullmqConnection(settings, "producer");
    expect(options.maxRetriesPerRequest).toBe(1);
    expect(options.commandTimeout).toBeGreaterThan(0);
  });

  it("gives a worker what BullMQ's blocking reads need", () => {
    const options = bullmqConnection(settings, "worker");
    expect(options.maxRetriesPerRequest).toBeNull();
    expect(options.commandTimeout).toBeUndefined();
  });

  it("keeps reconnect delays bounded", () => {
    for (const role of ["producer", "worker"] as const) {
      const retry = bullmqConnection(settings, role).retryStrategy as (times: number) => number;
      expect(retry(1)).toBeGreaterThan(0);
      expect(retry(1_000)).toBeLessThanOrEqual(5_000);
    }
  });
});
