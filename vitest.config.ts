import { defineConfig } from "vitest/config";

// Tests that need MySQL or Redis say so in their file name, so the fast
// project runs without any service. The live project talks to Google Cloud and
// reports itself skipped without credentials.
const services = ["**/*.mysql.test.ts", "**/*.redis.test.ts", "**/*.e2e.test.ts"];
const live = ["**/*.live.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "fast",
          include: ["packages/*/src/**/*.test.ts", "infra/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...services, ...live],
        },
      },
      {
        test: {
          name: "services",
          include: services.map((glob) => `{packages,infra,scripts}/${glob}`),
          exclude: ["**/node_modules/**"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
          // Tests leave nothing behind in MySQL or Redis: each file's names are checked when it ends,
          // and the whole run's at the end (packages/core/src/testing/leak-check.ts).
          globalSetup: ["packages/core/src/testing/leak-check.global-setup.ts"],
          setupFiles: ["packages/core/src/testing/leak-check.setup.ts"],
        },
      },
      {
        test: { name: "live", include: live.map((glob) => `packages/${glob}`), testTimeout: 300_000 },
      },
    ],
  },
});
