/**
 * The bounds on every count a config names that costs memory or threads per unit: instances,
 * gears, priority levels, preferred sizes, queue sizes, warmup samples, tensors, dims, rate-limiter
 * resources. One table,
 * checked by one function: `gebe validate` reports its findings (rule CONFIG_LIMIT) and `gebe
 * serve` refuses to load a config (from disk or a load request) that has any, before anything is
 * allocated. The native executor defends again with coarser caps of its own (model_options.cc).
 */
import type { ConfigPath } from './ast.js';
import { metricControls, type DataTypeName, type ModelConfig, type ModelTensorConfig } from './model-config.js';
import { datatypeFromConfig, elementSize } from '../kserve/datatypes.js';

export interface ConfigLimits {
  /** Instances per model, summed over instance_group (a thread and a session each). */
  instancesPerModel: number;
  preferredBatchSizes: number;
  priorityLevels: number;
  maxQueueSize: number;
  /** Gears in graph.ge.dynamicDims / ge.dynamicBatchSize (a compiled graph each). */
  gears: number;
  warmupEntries: number;
  warmupCount: number;
  tensors: number;
  rank: number;
  /** Steps of an ensemble (each one request to a composing model per ensemble request). */
  ensembleSteps: number;
  /** Sequence slots per instance (direct: max_batch_size; oldest: max_candidate_sequences). */
  sequenceSlots: number;
  /** sequence_batching.state entries, and bytes of one sequence's state (each holds it per live sequence). */
  sequenceStates: number;
  stateBytes: number;
  /** model_metrics histogram buckets of one family (each a line of every scrape, per model). */
  histogramBuckets: number;
  /** Resources one instance group's rate_limiter names (the rate limiter compares them at every grant). */
  rateLimiterResources: number;
}

export const DEFAULT_CONFIG_LIMITS: Readonly<ConfigLimits> = {
  instancesPerModel: 128,
  preferredBatchSizes: 64,
  priorityLevels: 1024,
  maxQueueSize: 1 << 20,
  gears: 100, // ATC's own limit on dynamic batch/dims gears
  warmupEntries: 64,
  warmupCount: 1000,
  tensors: 1024,
  rank: 64, // NumPy's (2.x) limit on dimensions
  ensembleSteps: 256,
  sequenceSlots: 1024,
  sequenceStates: 64,
  stateBytes: 16 << 20,
  histogramBuckets: 100,
  rateLimiterResources: 64,
};

/**
 * How deeply blocks and lists may nest in a config, text format or JSON. Real configs nest a few
 * levels; the bound keeps hostile input from exhausting the stack of a recursive parser or printer.
 */
export const MAX_CONFIG_NESTING = 200;

/** The highest `--max-instances-per-model` accepts: the native executor's own cap. */
export const MAX_INSTANCES_CAP = 4096;

export interface LimitFinding {
  at: ConfigPath;
  message: string;
}

/** GE parameters holding gears, separated by ';' (ge-options.ts reads them). */
const GEAR_PARAMETERS = ['graph.ge.dynamicDims'];

function over(at: ConfigPath, what: string, got: number, max: number, hint = ''): LimitFinding {
  return { at, message: `${what} is ${got}, over the limit of ${max}${hint}` };
}

/** Every place `config` exceeds `limits`, each naming the field and the bound. */
export function configLimitFindings(config: ModelConfig, limits: ConfigLimits = DEFAULT_CONFIG_LIMITS): LimitFinding[] {
  const out: LimitFinding[] = [];
  const groups = config.instance_group ?? [];
  const instances = groups.reduce((sum, g) => sum + Math.max(0, Number(g.count ?? 1)), 0);
  if (instances > limits.instancesPerModel) {
    const at: ConfigPath = groups.length === 1 ? ['instance_group', 0, 'count'] : ['instance_group'];
    out.push(over(at, 'the instance count (instance_group count, summed)', instances, limits.instancesPerModel,
      ' instances per model; lower count, or start `gebe serve` with --max-instances-per-model'));
  }
  groups.forEach((g, i) => {
    const resources = (g as { rate_limiter?: { resources?: unknown[] } }).rate_limiter?.resources?.length ?? 0;
    if (resources > limits.rateLimiterResources) {
      out.push(over(['instance_group', i, 'rate_limiter', 'resources'], `the number of instance_group[${i}].rate_limiter resources`, resources, limits.rateLimiterResources));
    }
  });
  const db = config.dynamic_batching;
  const preferred = db?.preferred_batch_size?.length ?? 0;
  if (preferred > limits.preferredBatchSizes) {
    out.push(over(['dynamic_batching', 'preferred_batch_size'], 'the number of dynamic_batching.preferred_batch_size entries', preferred, limits.preferredBatchSizes));
  }
  const levels = Number(db?.priority_levels ?? 0);
  if (levels > limits.priorityLevels) {
    out.push(over(['dynamic_batching', 'priority_levels'], 'dynamic_batching.priority_levels', levels, limits.priorityLevels));
  }
  const queue = (at: ConfigPath, size: unknown) => {
    if (Number(size ?? 0) > limits.maxQueueSize) out.push(over(at, at.join('.'), Number(size), limits.maxQueueSize));
  };
  queue(['dynamic_batching', 'default_queue_policy', 'max_queue_size'], db?.default_queue_policy?.max_queue_size);
  for (const [level, policy] of Object.entries(db?.priority_queue_policy ?? {})) {
    queue(['dynamic_batching', 'priority_queue_policy', level, 'max_queue_size'], policy?.max_queue_size);
  }
  for (const key of GEAR_PARAMETERS) {
    const value = config.parameters?.[key]?.string_value;
    const gears = typeof value === 'string' ? value.split(';').length : 0;
    if (gears > limits.gears) out.push(over(['parameters', key], `the number of gears in parameters "${key}"`, gears, limits.gears));
  }
  const warmups = config.model_warmup ?? [];
  if (warmups.length > limits.warmupEntries) out.push(over(['model_warmup'], 'the number of model_warmup entries', warmups.length, limits.warmupEntries));
  warmups.slice(0, limits.warmupEntries).forEach((w, i) => {
    if (Number(w.count ?? 0) > limits.warmupCount) out.push(over(['model_warmup', i, 'count'], `model_warmup[${i}].count`, Number(w.count), limits.warmupCount));
  });
  const steps = (config.ensemble_scheduling as { step?: unknown[] } | undefined)?.step;
  if (Array.isArray(steps) && steps.length > limits.ensembleSteps) {
    out.push(over(['ensemble_scheduling', 'step'], 'the number of ensemble_scheduling steps', steps.length, limits.ensembleSteps));
  }
  for (const kind of ['input', 'output'] as const) {
    const list: ModelTensorConfig[] = config[kind] ?? [];
    if (list.length > limits.tensors) out.push(over([kind], `the number of ${kind}s`, list.length, limits.tensors));
    list.slice(0, limits.tensors).forEach((t, i) => {
      if ((t.dims?.length ?? 0) > limits.rank) out.push(over([kind, i, 'dims'], `the rank of ${kind} '${t.name ?? i}'`, t.dims.length, limits.rank, ' dimensions'));
      const reshape = t.reshape?.shape?.length ?? 0;
      if (reshape > limits.rank) out.push(over([kind, i, 'reshape', 'shape'], `the rank of ${kind} '${t.name ?? i}' reshape`, reshape, limits.rank, ' dimensions'));
    });
  }
  metricControls(config).forEach((control, i) => {
    const buckets = control.histogram_options?.buckets?.length ?? 0;
    if (buckets > limits.histogramBuckets) {
      out.push(over(['model_metrics', 'metric_control', i, 'histogram_options', 'buckets'], 'the number of histogram buckets', buckets, limits.histogramBuckets));
    }
  });
  sequenceLimitFindings(config, limits, out);
  return out;
}

interface SequenceLimitView {
  oldest?: { max_candidate_sequences?: number };
  state?: Array<{ input_name?: string; dims?: number[]; data_type?: string }>;
}

function sequenceLimitFindings(config: ModelConfig, limits: ConfigLimits, out: LimitFinding[]): void {
  const seq = config.sequence_batching as SequenceLimitView | undefined;
  if (seq === undefined) return;
  const candidates = Number(seq.oldest?.max_candidate_sequences ?? 0);
  if (candidates > limits.sequenceSlots) {
    out.push(over(['sequence_batching', 'oldest', 'max_candidate_sequences'], 'sequence_batching.oldest.max_candidate_sequences', candidates, limits.sequenceSlots, ' sequence slots per instance'));
  }
  const states = seq.state ?? [];
  if (states.length > limits.sequenceStates) out.push(over(['sequence_batching', 'state'], 'the number of sequence_batching.state entries', states.length, limits.sequenceStates));
  states.slice(0, limits.sequenceStates).forEach((s, i) => {
    const elements = (s.dims ?? []).reduce((n, d) => n * Math.max(1, Number(d)), 1);
    const datatype = datatypeFromConfig((s.data_type ?? 'TYPE_INVALID') as DataTypeName);
    const bytes = elements * Math.max(1, datatype ? elementSize(datatype) : 1);
    if (bytes > limits.stateBytes) {
      out.push(over(['sequence_batching', 'state', i, 'dims'], `the size of state '${s.input_name ?? i}' (bytes per sequence)`, bytes, limits.stateBytes, ' bytes'));
    }
  });
}
