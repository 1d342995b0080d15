/**
 * What `gebe serve` does with a config's fields it does not implement: a field that changes what a
 * model computes or how it is driven (decoupled responses outside the Python backend, batch inputs
 * of Python models and ensembles, iterative sequences outside the Python backend)
 * refuses the load, because serving the model without it would give wrong answers without an error
 * (ensembles are run: src/core/ensemble/; Python models: src/core/python-backend/; sequence
 * batching: native/src/scheduler/sequence_batcher.cc); a field that only tunes or decorates serving
 * is accepted and named as ignored, so the start-up table and the log say so. One place for the
 * list: the model manager
 * asks here for every load.
 */
import { isDecoupled, isRaggedInput, responseCacheUse, type ModelConfig } from '../config/model-config.js';

export interface ServeSupport {
  /** Why serve will not run this model; undefined when it will. */
  refusal?: string;
  /** Fields present in the config that serve accepts but does not act on, as config paths. */
  ignored: string[];
}

const VALIDATE_STILL_CHECKS = '`gebe validate` still checks its config';

/** `rateLimiting`: the server runs Triton's rate limiter (--rate-limit execution_count). */
export function serveSupport(config: ModelConfig, server: { rateLimiting?: boolean } = {}): ServeSupport {
  return { refusal: refusal(config), ignored: ignoredFields(config, server.rateLimiting === true) };
}

/**
 * Whether a rate_limiter goes unheeded: only when the server limits (without --rate-limit Triton
 * ignores them too, and says nothing) and the model is an ensemble, which has no instances (the
 * executor's models and Python models are held).
 */
function rateLimiterIgnored(config: ModelConfig, rateLimiting: boolean): boolean {
  return rateLimiting && config.platform === 'ensemble';
}

function refusal(config: ModelConfig): string | undefined {
  if (config.sequence_batching !== undefined && (config.model_warmup ?? []).length > 0) {
    return `model_warmup on a sequence_batching model is not run by gebe serve (its samples carry no sequence ids); remove model_warmup or warm the model with a sequence of requests`;
  }
  if (isDecoupled(config) && config.backend !== 'python' && config.platform !== 'ensemble') {
    return `model_transaction_policy { decoupled: true } is implemented by gebe serve for Python-backend models and ensembles only: its engines send exactly one response per request; ${VALIDATE_STILL_CHECKS}`;
  }
  for (const field of ['batch_input', 'batch_output'] as const) {
    if (Array.isArray(config[field]) && (config[field] as unknown[]).length > 0 && !runsOnExecutor(config)) {
      return `${field} is implemented by gebe serve for the cpu and ascend engines' models only (not Python models or ensembles): the model would not get the tensors it names; ${VALIDATE_STILL_CHECKS}`;
    }
  }
  return undefined;
}

/**
 * Whether the server's response cache (`--cache-config local,size=<bytes>`) keeps this model's
 * answers: its config enables it, and it is neither decoupled nor a sequence model.
 */
export function cachesResponses(config: ModelConfig): boolean {
  return responseCacheUse(config) === 'cached';
}

/**
 * Why a server with a response cache will not load this model: a decoupled model that enables the
 * cache, which Triton refuses to load in these words (a cached answer cannot stand for a stream of
 * responses). Asked after a Python model's config is completed, which may make it decoupled.
 */
export function responseCacheRefusal(config: ModelConfig, serverHasCache: boolean): string | undefined {
  if (!serverHasCache || responseCacheUse(config) !== 'decoupled') return undefined;
  return `Response Cache does not currently support model '${config.name}' with 'decoupled' transaction policy; remove response_cache { enable: true } from its config, or serve it without --cache-config`;
}

/** Top-level fields serve reads nothing from (beyond `gebe validate`'s checks). */
const IGNORED_TOP_LEVEL = [
  'optimization', 'model_operations', 'model_repository_agents', 'metric_tags', 'cc_model_filenames',
] as const;

function ignoredFields(config: ModelConfig, rateLimiting: boolean): string[] {
  const ignored: string[] = IGNORED_TOP_LEVEL.filter((f) => present(config[f]));
  // Its one family, the first-response histogram (--metrics-config histogram_latencies=true), is a decoupled model's.
  if (present(config.model_metrics) && !isDecoupled(config)) ignored.push('model_metrics');
  // Enabled on a model whose answers the cache cannot stand for (as Triton's cache skips them).
  const cache = responseCacheUse(config);
  if (cache === 'decoupled' || cache === 'sequence') ignored.push('response_cache');
  if (typeof config.runtime === 'string' && config.runtime !== '') ignored.push('runtime');
  for (const [i, group] of (config.instance_group ?? []).entries()) {
    const g = group as Record<string, unknown>;
    for (const f of ['rate_limiter', 'secondary_devices', 'host_policy', 'profile', 'passive']) {
      if (f === 'rate_limiter' && !rateLimiterIgnored(config, rateLimiting)) continue;
      if (present(g[f])) ignored.push(`instance_group[${i}].${f}`);
    }
  }
  ignored.push(...ignoredSequenceFields(config));
  // Ragged batching is the executor's (batch_layout.h), and only batched models batch.
  for (const t of config.input ?? []) {
    if (t.allow_ragged_batch === true && !(runsOnExecutor(config) && isRaggedInput(config, t))) ignored.push(`input "${t.name}".allow_ragged_batch`);
  }
  return ignored;
}

/**
 * sequence_batching fields the batcher accepts without acting on them. (What it cannot run at
 * all, iterative_sequence outside the Python backend and variable-size or string states, refuses
 * the load in executor/sequence-options.ts, which reads the rest.)
 */
function ignoredSequenceFields(config: ModelConfig): string[] {
  const seq = config.sequence_batching as
    | { direct?: Record<string, unknown>; oldest?: Record<string, unknown>; state?: Array<Record<string, unknown>> }
    | undefined;
  if (seq === undefined) return [];
  const out: string[] = [];
  if (present(seq.direct?.minimum_slot_utilization)) out.push('sequence_batching.direct.minimum_slot_utilization');
  if (present(seq.oldest?.preserve_ordering)) out.push('sequence_batching.oldest.preserve_ordering');
  for (const [i, s] of (seq.state ?? []).entries()) {
    for (const f of ['use_same_buffer_for_input_output', 'use_growable_memory']) {
      if (present(s[f])) out.push(`sequence_batching.state[${i}].${f}`);
    }
  }
  return out;
}

/** The model runs on the native executor (a cpu or ascend engine), not the Python backend or as an ensemble. */
function runsOnExecutor(config: ModelConfig): boolean {
  return config.backend !== 'python' && config.platform !== 'ensemble';
}

/** Set in the config: not absent, not false, not an empty string, list or message. */
function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
