/**
 * The parsed ModelConfig as plain data with Triton's proto field names (snake_case), as the
 * config core produces it. 64-bit integers are JS numbers here (the corpus conversion keeps the
 * exact decimal text separately). Only the fields the runtime layers read are typed strictly;
 * the config core's full schema lives in model_config.proto.
 */
export type DataTypeName =
  | 'TYPE_INVALID' | 'TYPE_BOOL' | 'TYPE_UINT8' | 'TYPE_UINT16' | 'TYPE_UINT32' | 'TYPE_UINT64'
  | 'TYPE_INT8' | 'TYPE_INT16' | 'TYPE_INT32' | 'TYPE_INT64' | 'TYPE_FP16' | 'TYPE_FP32'
  | 'TYPE_FP64' | 'TYPE_STRING' | 'TYPE_BF16';

export interface ModelTensorConfig {
  name: string;
  data_type: DataTypeName;
  format?: 'FORMAT_NONE' | 'FORMAT_NHWC' | 'FORMAT_NCHW';
  dims: number[];
  reshape?: { shape: number[] };
  label_filename?: string;
  optional?: boolean;
  [field: string]: unknown;
}

export interface ModelQueuePolicyConfig {
  timeout_action?: 'REJECT' | 'DELAY';
  default_timeout_microseconds?: number;
  allow_timeout_override?: boolean;
  max_queue_size?: number;
}

export interface DynamicBatchingConfig {
  preferred_batch_size?: number[];
  max_queue_delay_microseconds?: number;
  preserve_ordering?: boolean;
  priority_levels?: number;
  default_priority_level?: number;
  default_queue_policy?: ModelQueuePolicyConfig;
  priority_queue_policy?: Record<string, ModelQueuePolicyConfig>;
}

export interface InstanceGroupConfig {
  name?: string;
  count?: number;
  kind?: 'KIND_AUTO' | 'KIND_GPU' | 'KIND_CPU' | 'KIND_MODEL';
  gpus?: number[];
  [field: string]: unknown;
}

export interface ModelWarmupConfig {
  name: string;
  batch_size?: number;
  count?: number;
  inputs?: Record<string, {
    data_type: DataTypeName;
    dims: number[];
    zero_data?: boolean;
    random_data?: boolean;
    input_data_file?: string;
  }>;
}

export interface ModelConfig {
  name?: string;
  platform?: string;
  backend?: string;
  max_batch_size?: number;
  version_policy?: { latest?: { num_versions?: number }; all?: object; specific?: { versions?: number[] } };
  input?: ModelTensorConfig[];
  output?: ModelTensorConfig[];
  instance_group?: InstanceGroupConfig[];
  default_model_filename?: string;
  dynamic_batching?: DynamicBatchingConfig;
  parameters?: Record<string, { string_value?: string }>;
  model_warmup?: ModelWarmupConfig[];
  [field: string]: unknown;
}

/** A batch_input entry: a model input the server computes from the batch it formed. */
export interface BatchInputConfig {
  kind?: string;
  target_name?: string[];
  data_type?: string;
  source_input?: string[];
}

/** A batch_output entry: an output split among the requests by their source input's shape. */
export interface BatchOutputConfig {
  kind?: string;
  target_name?: string[];
  source_input?: string[];
}

export function batchInputs(config: ModelConfig): BatchInputConfig[] {
  return Array.isArray(config.batch_input) ? (config.batch_input as BatchInputConfig[]) : [];
}

export function batchOutputs(config: ModelConfig): BatchOutputConfig[] {
  return Array.isArray(config.batch_output) ? (config.batch_output as BatchOutputConfig[]) : [];
}

/**
 * A ragged input: allow_ragged_batch on a model that batches (max_batch_size > 0). Requests of any
 * shape batch together, and the model gets the batch's elements as one dimension.
 */
export function isRaggedInput(config: ModelConfig, tensor: ModelTensorConfig): boolean {
  return tensor.allow_ragged_batch === true && Number(config.max_batch_size ?? 0) > 0;
}

/** An output a batch_output splits by its source input's shapes: its model shape need not match its dims (as Triton's backends). */
export function isBatchOutputTarget(config: ModelConfig, name: string): boolean {
  return batchOutputs(config).some((bo) => (bo.target_name ?? []).includes(name));
}

/**
 * How the model's shape of a config tensor relates to its dims: 'ragged', a ragged input, which
 * the model gets as one dimension (isRaggedInput); 'free', a batch output's target, whose model
 * shape the batch_output splits however it is (as Triton's backends, which skip its check);
 * 'dims' for every other tensor. `gebe validate` and the executor's load both ask here.
 */
export function modelShapeRule(config: ModelConfig, io: 'input' | 'output', tensor: ModelTensorConfig): 'ragged' | 'free' | 'dims' {
  if (io === 'input') return isRaggedInput(config, tensor) ? 'ragged' : 'dims';
  return isBatchOutputTarget(config, tensor.name) ? 'free' : 'dims';
}

export function raggedInputNames(config: ModelConfig): string[] {
  return (config.input ?? []).filter((t) => isRaggedInput(config, t)).map((t) => t.name);
}

/** model_metrics.metric_control entries: bucket boundaries for one of Triton's histogram families. */
export interface MetricControlConfig {
  metric_identifier?: { family?: string };
  histogram_options?: { buckets?: number[] };
}

/** The one metric family a config may customize (Triton's first-response histogram, in ms). */
export const FIRST_RESPONSE_HISTOGRAM = 'nv_inference_first_response_histogram_ms';
/** Its buckets unless the config's model_metrics names others (Triton's defaults, ms). */
export const DEFAULT_FIRST_RESPONSE_BUCKETS_MS: readonly number[] = [100, 500, 2000, 5000];

export function metricControls(config: ModelConfig): MetricControlConfig[] {
  const controls = (config.model_metrics as { metric_control?: MetricControlConfig[] } | undefined)?.metric_control;
  return Array.isArray(controls) ? controls : [];
}

/** The first-response histogram's buckets for this model: its model_metrics', else Triton's defaults. */
export function firstResponseBuckets(config: ModelConfig): readonly number[] {
  const control = metricControls(config).find((c) => c.metric_identifier?.family === FIRST_RESPONSE_HISTOGRAM);
  const buckets = control?.histogram_options?.buckets;
  return buckets && buckets.length > 0 ? buckets.map(Number) : DEFAULT_FIRST_RESPONSE_BUCKETS_MS;
}

/** model_transaction_policy { decoupled: true }: the model sends any number of responses a request. */
export function isDecoupled(config: ModelConfig | undefined): boolean {
  return (config?.model_transaction_policy as { decoupled?: boolean } | undefined)?.decoupled === true;
}

/**
 * What `response_cache { enable: true }` does for a model: 'off' where it is not enabled;
 * 'cached' where a server with a response cache keeps its answers; 'decoupled' or 'sequence' where
 * the cache cannot stand for them, as Triton's cannot (a stream of responses; answers that depend
 * on a sequence's state): Triton refuses to load the first on a server with a cache and does not
 * cache the second.
 */
export function responseCacheUse(config: ModelConfig): 'off' | 'cached' | 'decoupled' | 'sequence' {
  if ((config.response_cache as { enable?: boolean } | undefined)?.enable !== true) return 'off';
  if (isDecoupled(config)) return 'decoupled';
  return config.sequence_batching !== undefined ? 'sequence' : 'cached';
}
