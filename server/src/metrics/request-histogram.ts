// http_request_duration_seconds, observed on every answer. prom-client's Histogram checks its
// labels, builds a label object and a hash string, and walks its buckets by key on each
// observation (about half a microsecond, one of the larger shares of a keyed read beyond the
// log line); here an answer is a map lookup by its three labels and an increment. The series
// are handed to the registry in the shape prom-client's own histogram gives it (bucket bound
// as the line's label, the request's labels shared), so /metrics reads exactly as before.
import type { Registry } from 'prom-client';

type Labels = { method: string; route: string; status: number };
type Series = { labels: Labels; counts: number[]; sum: number; count: number };

export function createRequestHistogram({
  name,
  help,
  buckets,
  registers,
}: {
  name: string;
  help: string;
  /** Upper bounds, ascending (+Inf is added). */
  buckets: readonly number[];
  registers: Registry[];
}) {
  /** In the order first seen, as prom-client lists them. */
  const series = new Set<Series>();
  const index = new Map<string, Map<string, Series>>();
  const metric = {
    name,
    help,
    type: 'histogram' as const,
    aggregator: 'sum' as const,
    /** As prom-client's Histogram#getForPromString: cumulative buckets, +Inf, sum and count per label set. */
    getForPromString() {
      const values: { labels: object; sharedLabels: object; value: number; metricName: string; exemplar?: null }[] = [];
      for (const s of series) {
        let cumulative = 0;
        for (let i = 0; i < buckets.length; i++) {
          cumulative += s.counts[i] as number;
          values.push({
            labels: { le: buckets[i] },
            sharedLabels: s.labels,
            value: cumulative,
            metricName: `${name}_bucket`,
            exemplar: null,
          });
        }
        values.push(
          { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
          { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` },
        );
      }
      return { name, help, type: metric.type, values, aggregator: metric.aggregator };
    },
    /** As prom-client's Histogram#get: every line's labels in one object. */
    get() {
      const data = metric.getForPromString();
      return {
        ...data,
        values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
      };
    },
    reset() {
      series.clear();
      index.clear();
    },
  };
  for (const r of registers) r.registerMetric(metric as never);

  return {
    observe(method: string, route: string, status: number, seconds: number) {
      if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
      // By route, then method and status: no key string to build per answer.
      let byRoute = index.get(route);
      if (!byRoute) {
        byRoute = new Map();
        index.set(route, byRoute);
      }
      const key = `${method} ${status}`;
      let s = byRoute.get(key);
      if (!s) {
        s = { labels: { method, route, status }, counts: buckets.map(() => 0), sum: 0, count: 0 };
        byRoute.set(key, s);
        series.add(s);
      }
      // A value above every bound counts only in +Inf (the count).
      for (let i = 0; i < buckets.length; i++) {
        if (seconds <= (buckets[i] as number)) {
          (s.counts[i] as number)++;
          break;
        }
      }
      s.sum += seconds;
      s.count++;
    },
  };
}
