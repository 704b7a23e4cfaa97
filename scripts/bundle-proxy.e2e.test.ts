import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { testRedisUrl } from "@table-archiver/core/testing";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serve, served, servedFunctions, waitUntil } from "./testing/served-functions";

// Behind an egress proxy (HTTPS_PROXY), every Google client in a bundle reaches Google through gaxios, which loads
// https-proxy-agent with import(). Bundled, that import would yield only a default export and every call would fail
// with "HttpsProxyAgent is not a constructor"; the runtime installs the package instead. The reader's rebuildSet,
// with a service account key, must ask the proxy to CONNECT to Google's token endpoint.
const scratch = mkdtempSync(path.join(tmpdir(), "archiver-proxy-"));
const connects: string[] = [];
let proxy: Server;

beforeAll(async () => {
  proxy = createServer((_request, response) => response.writeHead(403).end());
  proxy.on("connect", (request, socket) => {
    connects.push(request.url ?? "");
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = (proxy.address() as { port: number }).port;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keyFile = path.join(scratch, "key.json");
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: "service_account",
      project_id: "bundle-test",
      private_key_id: "0",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "archiver-reader@bundle-test.iam.gserviceaccount.com",
      client_id: "0",
      token_uri: "https://oauth2.googleapis.com/token",
    }),
  );
  served.reader = await serve("reader", {
    REDIS_URL: testRedisUrl,
    WAREHOUSE: "bigquery",
    WAREHOUSE_DATASET: "archive",
    BIGQUERY_PROJECT: "bundle-test",
    BIGQUERY_LOCATION: "EU",
    GOOGLE_APPLICATION_CREDENTIALS: keyFile,
    HTTPS_PROXY: `http://127.0.0.1:${port}`,
    NO_PROXY: "127.0.0.1,localhost",
  });
}, 120_000);

afterAll(async () => {
  await servedFunctions.stop();
  await new Promise((resolve) => proxy?.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

test("the reader's BigQuery client goes through HTTPS_PROXY, with the proxy agent gaxios imports", async () => {
  const response = await fetch(served.reader.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method: "rebuildSet", data: "mig_orders" }),
  });
  // The proxy refuses, so the rebuild fails; what matters is that it got that far.
  expect(response.status).toBeGreaterThanOrEqual(500);
  await waitUntil(
    () => connects.length > 0,
    () => `no CONNECT reached the proxy; the function said:\n${served.reader.output()}`,
    10_000,
  );
  expect(connects[0]).toMatch(/googleapis\.com:443$/);
  expect(served.reader.output()).not.toContain("is not a constructor");
});
