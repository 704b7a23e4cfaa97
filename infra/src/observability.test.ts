import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WAIT_REASONS } from "./components/log-metrics";
import { ofType, PROJECT } from "./testing/deploy-dev-stack";
import { deploy, devStackBundles } from "./testing/dev-stack-bundles";
import type { MockRun } from "./testing/pulumi-mocks";

// What the functions' logs become: log-based metrics, alerts to alertEmails, one dashboard.
// The example stack file's policies: orders (nightly in Europe/Paris, cleanup on Sundays) and
// audit_log (nightly in UTC, cleanup off).

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

/** A deploy under mocks takes a second or two, several on a loaded machine. */
const DEPLOY_TIMEOUT = 30_000;
const HOUR = 3600;
const DAY = 24 * HOUR;

const metric = (run: MockRun, name: string) => {
  const found = ofType(run, "gcp:logging/metric:Metric").find((m) => m.inputs.name === name);
  if (!found) throw new Error(`no metric ${name}`);
  return found.inputs;
};
const alerts = (run: MockRun) => ofType(run, "gcp:monitoring/alertPolicy:AlertPolicy").map((a) => a.inputs);
const alertNamed = (run: MockRun, pattern: RegExp) => {
  const found = alerts(run).filter((a) => pattern.test(a.displayName));
  expect(found, String(pattern)).toHaveLength(1);
  const [alert] = found;
  if (!alert) throw new Error(`no alert ${pattern}`);
  return alert;
};
// biome-ignore lint/suspicious/noExplicitAny: resource inputs are untyped JSON from the engine protocol.
const promql = (alert: Record<string, any>): string =>
  alert.conditions[0]?.conditionPrometheusQueryLanguage.query;

describe("log-based metrics", () => {
  test(
    "count the lines the functions write, each labelled by table",
    async () => {
      const run = await deploy();
      const expected: Record<string, { message: string; value?: string }> = {
        archiver_rows_copied: { message: '"copied day"', value: "EXTRACT(jsonPayload.rows)" },
        archiver_rows_deleted: { message: '"cleaned day"', value: "EXTRACT(jsonPayload.rowsDeleted)" },
        archiver_days_refused: { message: '"cleanup refused day; its rows are kept"' },
        archiver_tasks_failed: { message: '"^task failed: "' },
        archiver_runs_ended: { message: '"run ended"' },
        archiver_cleanup_runs_deferred: { message: '"run ended"' },
        ...Object.fromEntries(
          WAIT_REASONS.map((r) => [
            `archiver_cleanup_wait_${r}`,
            { message: '"cleaned day"', value: `EXTRACT(jsonPayload.waitedByReason.${r})` },
          ]),
        ),
      };
      expect(
        ofType(run, "gcp:logging/metric:Metric")
          .map((m) => m.inputs.name)
          .sort(),
      ).toEqual(Object.keys(expected).sort());
      for (const [name, { message, value }] of Object.entries(expected)) {
        const inputs = metric(run, name);
        expect(inputs.filter, name).toContain(message);
        expect(inputs.filter, name).toContain('resource.type="cloud_run_revision"');
        expect(inputs.labelExtractors.table, name).toBe("EXTRACT(jsonPayload.table)");
        expect(
          inputs.metricDescriptor.labels.map((l: { key: string }) => l.key),
          name,
        ).toContain("table");
        expect(inputs.metricDescriptor.valueType, name).toBe(value ? "DISTRIBUTION" : "INT64");
        expect(inputs.valueExtractor, name).toBe(value);
      }
      expect(metric(run, "archiver_cleanup_runs_deferred").filter).toContain("jsonPayload.deferred>0");
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "a task has failed for good when it is not retried or was the queue's last attempt",
    async () => {
      const failed = async (attempts: string) =>
        metric(await deploy({ "table-archiver:queueMaxAttempts": attempts }), "archiver_tasks_failed").filter;
      expect(await failed("9")).toMatch(/\(jsonPayload\.retry=false OR jsonPayload\.attempt>=9\)/);
      // Unlimited attempts: only a failure that is not retried is final.
      expect(await failed("-1")).toMatch(/\(jsonPayload\.retry=false\)/);
    },
    DEPLOY_TIMEOUT,
  );
});

describe("alerts", () => {
  test(
    "reach one e-mail channel per address, every policy notifying every channel",
    async () => {
      const run = await deploy({
        "table-archiver:alertEmails": JSON.stringify(["ops@example.com", "dba@example.org"]),
      });
      const channels = ofType(run, "gcp:monitoring/notificationChannel:NotificationChannel").map(
        (c) => c.inputs,
      );
      expect(channels.map((c) => [c.type, c.labels.email_address])).toEqual([
        ["email", "ops@example.com"],
        ["email", "dba@example.org"],
      ]);
      expect(alerts(run).length).toBeGreaterThan(0);
      for (const alert of alerts(run)) {
        expect(alert.project).toBe(PROJECT);
        expect(alert.notificationChannels, alert.displayName).toHaveLength(2);
      }
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "fire on a task failed for good and on a day refused, per table",
    async () => {
      const run = await deploy();
      for (const [pattern, name] of [
        [/a task failed for good/, "archiver_tasks_failed"],
        [/a cleanup refused a day/, "archiver_days_refused"],
      ] as const) {
        const threshold = alertNamed(run, pattern).conditions[0].conditionThreshold;
        expect(threshold.filter).toContain(`metric.type="logging.googleapis.com/user/${name}"`);
        expect(threshold).toMatchObject({ comparison: "COMPARISON_GT", thresholdValue: 0 });
        expect(threshold.aggregations[0].groupByFields).toEqual(["metric.label.table"]);
      }
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "fire when a table has no successful migration in two periods of its own schedule",
    async () => {
      const run = await deploy();
      // audit_log: "30 1 * * *" in UTC, one day a period. orders: "0 2 * * *" in Europe/Paris,
      // whose longest day (the DST change) is 25 hours.
      // Absent over one period and still absent a period later: two periods in all.
      const stalled = (table: string) => {
        const condition = alertNamed(run, new RegExp(`no successful migration of ${table}$`)).conditions[0];
        const { query, duration } = condition.conditionPrometheusQueryLanguage;
        const window = Number(/\[(\d+)s\]\)$/.exec(query)?.[1]);
        return { query, window, total: window + Number.parseInt(duration, 10) };
      };
      const audit = stalled("audit_log");
      expect(audit.query).toMatch(/^absent_over_time\(logging_googleapis_com:user_archiver_runs_ended\{/);
      expect(audit.query).toContain('table="audit_log",mode="migration",result="succeeded"');
      expect(audit).toMatchObject({ window: DAY, total: 2 * DAY });
      expect(stalled("orders")).toMatchObject({ window: DAY + HOUR, total: 2 * (DAY + HOUR) });
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "fire when a cleanup is deferred three periods running; none for a policy whose cleanup is off",
    async () => {
      const run = await deploy();
      // orders cleans on Sundays in Europe/Paris: a week, an hour longer across the DST change.
      const query = promql(alertNamed(run, /cleanup of orders deferred 3 times/));
      expect(query).toContain("logging_googleapis_com:user_archiver_cleanup_runs_deferred{");
      expect(query).toContain('table="orders"');
      expect(query).toMatch(new RegExp(`\\[${3 * (7 * DAY + HOUR)}s\\]\\)\\) >= 3$`));
      expect(alerts(run).filter((a) => /cleanup of audit_log/.test(a.displayName))).toEqual([]);
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "wait for the metrics they read",
    async () => {
      const run = await deploy();
      const metricNames = ofType(run, "gcp:logging/metric:Metric").map((m) => m.name);
      for (const alert of ofType(run, "gcp:monitoring/alertPolicy:AlertPolicy")) {
        expect(alert.dependencies, alert.name).toEqual(expect.arrayContaining(metricNames));
      }
    },
    DEPLOY_TIMEOUT,
  );
});

describe("the dashboard", () => {
  test(
    "charts every metric, each series summed by table",
    async () => {
      const run = await deploy();
      const [dashboard] = ofType(run, "gcp:monitoring/dashboard:Dashboard");
      const json = JSON.parse(dashboard?.inputs.dashboardJson) as {
        mosaicLayout: {
          tiles: { widget: { xyChart: { dataSets: { timeSeriesQuery: { prometheusQuery: string } }[] } } }[];
        };
      };
      const queries = json.mosaicLayout.tiles.flatMap((t) =>
        t.widget.xyChart.dataSets.map((d) => d.timeSeriesQuery.prometheusQuery),
      );
      for (const query of queries) expect(query).toMatch(/sum by \(table\b/);
      const metrics = ofType(run, "gcp:logging/metric:Metric").map((m) => String(m.inputs.name));
      for (const name of metrics) {
        expect(
          queries.some((q) => q.includes(`logging_googleapis_com:user_${name}`)),
          name,
        ).toBe(true);
      }
      expect(dashboard?.dependencies).toEqual(
        expect.arrayContaining(ofType(run, "gcp:logging/metric:Metric").map((m) => m.name)),
      );
    },
    DEPLOY_TIMEOUT,
  );
});
