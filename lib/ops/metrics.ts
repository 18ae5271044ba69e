/**
 * A small Prometheus registry: counters and histograms with labels, rendered in the text
 * exposition format (version 0.0.4). Bounded: each metric refuses more than `MAX_SERIES` label
 * sets, so hostile label values (e.g. random paths) cannot grow memory without limit.
 */

const MAX_SERIES = 1000;

type Labels = Record<string, string>;

// Label sets repeat (a handful of routes × statuses): remember their rendered form, bounded.
const labelKeys = new Map<string, string>();

function labelKey(labels: Labels): string {
  let raw = "";
  for (const k in labels) raw += `${k}\u0000${labels[k]}\u0001`;
  let key = labelKeys.get(raw);
  if (key === undefined) {
    key = Object.keys(labels).sort().map((k) => `${k}="${escapeLabel(labels[k])}"`).join(",");
    if (labelKeys.size < 10_000) labelKeys.set(raw, key);
  }
  return key;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

/** A monotonically increasing counter with labels. */
export class Counter {
  readonly #series = new Map<string, number>();
  /** Creates a counter; `name` should end in `_total`. */
  constructor(readonly name: string, readonly help: string) {}

  /** Adds `by` (default 1) to the series for `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    if (!this.#series.has(key) && this.#series.size >= MAX_SERIES) return;
    this.#series.set(key, (this.#series.get(key) ?? 0) + by);
  }

  /** The current value for `labels` (0 when never incremented). */
  get(labels: Labels = {}): number {
    return this.#series.get(labelKey(labels)) ?? 0;
  }

  /** Renders this counter in the text exposition format. */
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.#series) {
      lines.push(`${this.name}${key ? `{${key}}` : ""} ${value}`);
    }
    return lines.join("\n");
  }
}

/** Default latency buckets in seconds (1 ms … 10 s). */
export const LATENCY_BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** A cumulative histogram with labels. */
export class Histogram {
  readonly #series = new Map<string, { counts: number[]; sum: number; count: number }>();
  /** Creates a histogram with upper bounds `buckets` (ascending). */
  constructor(readonly name: string, readonly help: string, readonly buckets = LATENCY_BUCKETS) {}

  /** Records one observation for `labels`. */
  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let s = this.#series.get(key);
    if (!s) {
      if (this.#series.size >= MAX_SERIES) return;
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  /** Renders this histogram in the text exposition format. */
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, s] of this.#series) {
      const sep = key ? "," : "";
      this.buckets.forEach((le, i) => {
        lines.push(`${this.name}_bucket{${key}${sep}le="${le}"} ${s.counts[i]}`);
      });
      lines.push(`${this.name}_bucket{${key}${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${key ? `{${key}}` : ""} ${s.sum}`);
      lines.push(`${this.name}_count${key ? `{${key}}` : ""} ${s.count}`);
    }
    return lines.join("\n");
  }
}

/** The product's metrics, one instance per app. */
export class Metrics {
  /** Mint attempts by flow and outcome (`ok` or the problem code). */
  readonly mints = new Counter(
    "hub_mints_total",
    "Session-token mint attempts by flow and outcome.",
  );
  /** Render requests by outcome (`ok` or the problem code) and cache level. */
  readonly renders = new Counter(
    "kernel_renders_total",
    "Render requests by outcome and cache level.",
  );
  /** Evaluations this node started, by how it stood with the cross-node lease (render_lease.ts). */
  readonly renderEvaluations = new Counter(
    "kernel_render_evaluations_total",
    "Render evaluations started by this node, by lease (held, takeover, failed, timeout, unavailable, none).",
  );
  /** Waits for another node's evaluation of the same scene, by how they ended. */
  readonly renderLeaseWaits = new Counter(
    "kernel_render_lease_waits_total",
    "Waits for another node's evaluation of the same scene, by outcome (scene, takeover, failed, timeout, unavailable).",
  );
  /** Solids render workers took from their caches instead of evaluating (solid_cache.ts). */
  readonly reusedSolids = new Counter(
    "kernel_reused_solids_total",
    "Solids render workers reused from earlier renders instead of evaluating them again.",
  );
  /** A kernel node's render usage events lost because Redis did not take them (usage_relay.ts). */
  readonly usageDropped = new Counter(
    "kernel_usage_dropped_total",
    "Render usage events a kernel node dropped because Redis did not take their batch.",
  );
  /** Request latency by method, route pattern and status. */
  readonly requestDuration = new Histogram(
    "http_request_duration_seconds",
    "HTTP request latency by method, route and status.",
  );

  /** The whole registry in Prometheus text format. */
  render(): string {
    return [
      this.mints.render(),
      this.renders.render(),
      this.renderEvaluations.render(),
      this.renderLeaseWaits.render(),
      this.reusedSolids.render(),
      this.usageDropped.render(),
      this.requestDuration.render(),
    ].join("\n\n") + "\n";
  }
}
