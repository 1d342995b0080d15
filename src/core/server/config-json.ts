/**
 * A ModelConfig as JSON: a load request's `config` parameter, or what a Python model's
 * auto_complete_config() returned. Protobuf's JSON mapping writes 64-bit
 * integers as strings ("dims": ["-1", "28"]); those become numbers here, so the rest of gebe sees
 * the plain config the config core produces (which is also what the `config` endpoint answers,
 * with numbers, as Triton's does).
 */
import type { ModelConfig } from '../config/model-config.js';
import { ProtocolError } from '../kserve/protocol-error.js';

const INTEGER = /^-?[0-9]+$/;

/** Numeric strings become numbers only in fields that are numeric in model_config.proto. */
const NUMERIC_FIELDS = new Set([
  'dims', 'shape', 'max_batch_size', 'preferred_batch_size', 'max_queue_delay_microseconds', 'priority_levels',
  'default_priority_level', 'default_timeout_microseconds', 'max_queue_size', 'count', 'gpus', 'batch_size',
  'versions', 'num_versions', 'model_version', 'max_sequence_idle_microseconds', 'max_candidate_sequences',
]);

function numericStrings(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => numericStrings(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, numericStrings(v, k)]));
  }
  if (typeof value === 'string' && NUMERIC_FIELDS.has(key) && INTEGER.test(value)) return Number(value);
  return value;
}

/**
 * Where a config that is not config.pbtxt came from: its name in errors, and what its findings
 * say after the file name (`mnist/config.pbtxt (from the load request's 'config'):3:1`).
 */
export const CONFIG_ORIGINS = {
  'load-request': { name: "load parameter 'config'", display: "from the load request's 'config'" },
  'auto-complete': { name: 'the config auto_complete_config() returned', display: "as model.py's auto_complete_config() completed it" },
} as const;
export type ConfigOrigin = keyof typeof CONFIG_ORIGINS;

/** The config `text` holds; errors name where it came from ("load parameter 'config' for 'm' ..."). */
export function configFromJson(text: string, model: string, origin: ConfigOrigin = 'load-request'): ModelConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw ProtocolError.badRequest(`${CONFIG_ORIGINS[origin].name} for '${model}' is not valid JSON: ${(err as Error).message}`);
  }
  return configFromObject(parsed, model, origin);
}

export function configFromObject(parsed: unknown, model: string, origin: ConfigOrigin = 'load-request'): ModelConfig {
  const what = CONFIG_ORIGINS[origin].name;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw ProtocolError.badRequest(`${what} for '${model}' must be a JSON object (a ModelConfig)`);
  }
  const config = numericStrings(parsed) as ModelConfig;
  if (config.name !== undefined && config.name !== model) {
    throw ProtocolError.badRequest(`${what} names model '${String(config.name)}' but the model loaded is '${model}'; make them agree`);
  }
  return { ...config, name: model };
}

