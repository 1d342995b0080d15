/**
 * Custom metrics of Python models (pb_utils.MetricFamily, Metric), as Triton's python backend
 * offers them: counter, gauge and histogram families, server-wide (a family name is shared by every
 * model and instance that creates it, with the first creator's description; another kind is
 * refused), each holding series by label set (the same labels: the same series). They are served
 * on /metrics beside gebe's own.
 *
 * Each stub process holds handles (its MetricFamily and Metric objects) through a
 * CustomMetricHandles; a family is served while some handle holds it, a series while some handle
 * or its family does. A process that ends lets go of all it held. Every count is bounded: a model
 * cannot grow the server's memory without limit through its metrics.
 */
import { Registry } from 'prom-client';
import { histogramSamples, type FamilySample, type FamilyView } from '../server/prometheus-families.js';

export type MetricKind = 'counter' | 'gauge' | 'histogram';
/** pb_utils.MetricFamily.COUNTER, GAUGE, HISTOGRAM (Triton's values). */
const KINDS: readonly MetricKind[] = ['counter', 'gauge', 'histogram'];

export const CUSTOM_METRIC_LIMITS = {
  families: 1024,
  seriesPerFamily: 10_000,
  /** Label sets of all families together, and the characters of their labels (names and values). */
  series: 100_000,
  labelChars: 16 << 20,
  labelsPerSeries: 64,
  /** A name, label name or label value, in characters. */
  nameChars: 256,
  labelValueChars: 1024,
  descriptionChars: 4096,
  buckets: 256,
  /** Family and Metric objects one process may hold at once. */
  handlesPerProcess: 100_000,
};

/** Prometheus's names; gebe's own families (and the runtime's) are not for models to take. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const RESERVED_PREFIXES = ['nv_', 'process_', 'nodejs_'];

class Series {
  holders = 0;
  value = 0;
  sum = 0;
  count = 0;
  readonly bucketCounts: number[];
  constructor(readonly labels: Record<string, string>, readonly buckets: number[]) {
    this.bucketCounts = buckets.map(() => 0);
  }
}

class Family {
  holders = 0;
  readonly series = new Map<string, Series>();
  constructor(readonly name: string, readonly description: string, readonly kind: MetricKind) {}

  /** prom-client's view of the family at scrape time (it formats and escapes). */
  get(): FamilyView {
    const values: FamilySample[] = [];
    for (const s of this.series.values()) {
      if (this.kind !== 'histogram') {
        values.push({ labels: s.labels, value: s.value });
        continue;
      }
      let running = 0;
      const cumulative = s.bucketCounts.map((c) => (running += c));
      values.push(...histogramSamples(this.name, s.labels, s.buckets, cumulative, s.sum, s.count));
    }
    return { name: this.name, help: this.description, type: this.kind, values };
  }
}

/** The families of every Python model in this process: one registry, as Triton has one server. */
export class CustomMetricRegistry {
  readonly registry = new Registry();
  private readonly families = new Map<string, Family>();
  private series = 0;
  private labelChars = 0;

  /** The text of every family served now (Prometheus exposition), or '' when there is none. */
  async text(): Promise<string> {
    return this.families.size === 0 ? '' : this.registry.metrics();
  }

  hold(name: string, description: string, kind: MetricKind): Family {
    let family = this.families.get(name);
    if (family && family.kind !== kind) {
      throw new Error(`metric family '${name}' exists with kind ${family.kind.toUpperCase()}; a family keeps the kind it was created with`);
    }
    if (!family) {
      if (this.families.size >= CUSTOM_METRIC_LIMITS.families) throw new Error(`the server holds ${CUSTOM_METRIC_LIMITS.families} custom metric families, its limit`);
      family = new Family(name, description, kind);
      this.families.set(name, family);
      this.registry.registerMetric(family as never);
    }
    family.holders++;
    return family;
  }

  release(family: Family): void {
    if (--family.holders > 0 || this.families.get(family.name) !== family) return;
    this.families.delete(family.name);
    this.registry.removeSingleMetric(family.name);
    for (const [key, series] of family.series) this.dropSeries(family, key, series);
  }

  /** A new label set in `family`, within the server's bounds. */
  addSeries(family: Family, key: string, series: Series): void {
    if (family.series.size >= CUSTOM_METRIC_LIMITS.seriesPerFamily) throw new Error(`metric family '${family.name}' holds ${CUSTOM_METRIC_LIMITS.seriesPerFamily} label sets, its limit`);
    if (this.series >= CUSTOM_METRIC_LIMITS.series) throw new Error(`the server holds ${CUSTOM_METRIC_LIMITS.series} custom metric label sets, its limit`);
    const chars = labelChars(series.labels);
    if (this.labelChars + chars > CUSTOM_METRIC_LIMITS.labelChars) {
      throw new Error(`the labels of the server's custom metrics would pass ${CUSTOM_METRIC_LIMITS.labelChars} characters, its limit`);
    }
    family.series.set(key, series);
    this.series++;
    this.labelChars += chars;
  }

  /** Takes a label set out of `family` (no object holds it, or the family went). */
  dropSeries(family: Family, key: string, series: Series): void {
    if (family.series.get(key) !== series) return;
    family.series.delete(key);
    this.series--;
    this.labelChars -= labelChars(series.labels);
  }
}

export const customMetrics = new CustomMetricRegistry();

type Reply = (message: Record<string, unknown>) => void;

/**
 * One stub process's handles, by the ids the stub gave them, and the control messages that use
 * them (op "metric"). Operations are checked in model.py first (kinds, signs, buckets); what only
 * gebe knows (a family's kind elsewhere, the limits) comes back as the reply's error.
 */
export class CustomMetricHandles {
  private readonly families = new Map<number, Family>();
  private readonly series = new Map<number, { family: Family; series: Series; key: string }>();

  constructor(private readonly registry: CustomMetricRegistry = customMetrics) {}

  /** Handles one "metric" message; answers the ones that carry a `call` id. Throws on a malformed message (a protocol error). */
  handle(m: Record<string, unknown>, reply: Reply): void {
    const answer = (fields: Record<string, unknown>): void => {
      if (typeof m.call === 'number') reply({ op: 'metric_reply', call: m.call, ...fields });
    };
    try {
      answer(this.run(m));
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      answer({ error: (err as Error).message });
    }
  }

  /** Lets go of everything this process held (it ended). */
  releaseAll(): void {
    for (const id of [...this.series.keys()]) this.dropSeries(id);
    for (const family of this.families.values()) this.registry.release(family);
    this.families.clear();
  }

  private run(m: Record<string, unknown>): Record<string, unknown> {
    switch (m.action) {
      case 'family': {
        const id = this.newId(m.family, this.families);
        const name = text(m.name, 'name', CUSTOM_METRIC_LIMITS.nameChars);
        if (!METRIC_NAME.test(name)) throw new Error(`metric family name '${name}' is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)`);
        const reserved = RESERVED_PREFIXES.find((p) => name.startsWith(p));
        if (reserved) throw new Error(`metric family name '${name}' starts with '${reserved}', which the server's own metrics use`);
        const kind = KINDS[Number(m.kind)];
        if (!kind) throw new ProtocolError('metric family kind');
        this.families.set(id, this.registry.hold(name, text(m.description, 'description', CUSTOM_METRIC_LIMITS.descriptionChars), kind));
        return {};
      }
      case 'family_delete': {
        const family = this.families.get(Number(m.family));
        if (family) {
          this.families.delete(Number(m.family));
          this.registry.release(family);
        }
        return {};
      }
      case 'metric': {
        const id = this.newId(m.metric, this.series);
        const family = this.families.get(Number(m.family));
        if (!family) throw new Error("Invalid metric operation as the corresponding 'MetricFamily' has been deleted.");
        const labels = labelSet(m.labels, family.kind);
        const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
        let series = family.series.get(key);
        if (!series) {
          series = new Series(labels, family.kind === 'histogram' ? bucketList(m.buckets) : []);
          this.registry.addSeries(family, key, series);
        }
        series.holders++;
        this.series.set(id, { family, series, key });
        return {};
      }
      case 'metric_delete':
        this.dropSeries(Number(m.metric));
        return {};
      case 'increment':
      case 'set':
      case 'observe': {
        const held = this.series.get(Number(m.metric));
        const value = numberOf(m.value);
        if (!held) return {};  // its family is gone: model.py said so already
        const { family, series } = held;
        if (m.action === 'observe' && family.kind === 'histogram') {
          series.count++;
          series.sum += value;
          const at = series.buckets.findIndex((le) => value <= le);
          if (at >= 0) series.bucketCounts[at]!++;
        } else if (m.action === 'increment' && family.kind !== 'histogram' && (family.kind === 'gauge' || value >= 0)) {
          series.value += value;
        } else if (m.action === 'set' && family.kind === 'gauge') {
          series.value = value;
        } else {
          throw new ProtocolError(`${String(m.action)} on a ${family.kind}`);
        }
        return {};
      }
      case 'value': {
        const held = this.series.get(Number(m.metric));
        if (!held) throw new Error("Invalid metric operation as the corresponding 'MetricFamily' has been deleted.");
        return { value: encodeNumber(held.series.value) };
      }
      default:
        throw new ProtocolError(`metric action "${String(m.action).slice(0, 40)}"`);
    }
  }

  private newId(raw: unknown, taken: Map<number, unknown>): number {
    if (!Number.isSafeInteger(raw) || taken.has(raw as number)) throw new ProtocolError('metric handle id');
    if (this.families.size + this.series.size >= CUSTOM_METRIC_LIMITS.handlesPerProcess) {
      throw new Error(`this model instance holds ${CUSTOM_METRIC_LIMITS.handlesPerProcess} MetricFamily and Metric objects, the limit`);
    }
    return raw as number;
  }

  private dropSeries(id: number): void {
    const held = this.series.get(id);
    if (!held) return;
    this.series.delete(id);
    if (--held.series.holders === 0) this.registry.dropSeries(held.family, held.key, held.series);
  }
}

/** A message that model.py's own checks would never let through: the process breaks the protocol. */
export class ProtocolError extends Error {
  constructor(what: string) {
    super(`a malformed custom metric message (${what})`);
  }
}

function labelChars(labels: Record<string, string>): number {
  let n = 0;
  for (const [name, value] of Object.entries(labels)) n += name.length + value.length;
  return n;
}

function text(raw: unknown, what: string, max: number): string {
  if (typeof raw !== 'string') throw new ProtocolError(what);
  if (raw.length > max) throw new Error(`metric ${what} of ${raw.length} characters is over the limit of ${max}`);
  return raw;
}

function labelSet(raw: unknown, kind: MetricKind): Record<string, string> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ProtocolError('labels');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > CUSTOM_METRIC_LIMITS.labelsPerSeries) throw new Error(`a metric has ${entries.length} labels, over the limit of ${CUSTOM_METRIC_LIMITS.labelsPerSeries}`);
  const labels: Record<string, string> = {};
  for (const [name, value] of entries) {
    text(name, 'label name', CUSTOM_METRIC_LIMITS.nameChars);
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`label name '${name}' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with '__')`);
    if (kind === 'histogram' && name === 'le') throw new Error("label name 'le' is a histogram's own (its bucket bounds)");
    labels[name] = text(value, `label value of '${name}'`, CUSTOM_METRIC_LIMITS.labelValueChars);
  }
  return labels;
}

function bucketList(raw: unknown): number[] {
  if (!Array.isArray(raw)) throw new ProtocolError('buckets');
  if (raw.length > CUSTOM_METRIC_LIMITS.buckets) throw new Error(`a histogram has ${raw.length} buckets, over the limit of ${CUSTOM_METRIC_LIMITS.buckets}`);
  const buckets = raw.map(numberOf);
  if (buckets.some((b, i) => i > 0 && !(b > buckets[i - 1]!))) throw new ProtocolError('buckets not increasing');
  return buckets;
}

/** JSON carries no NaN or infinities: the stub sends those as strings. */
function numberOf(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (raw === 'NaN') return NaN;
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  throw new ProtocolError('value');
}

function encodeNumber(value: number): number | string {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
}
