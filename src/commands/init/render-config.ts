/**
 * Writes a new config.pbtxt for a scaffolded model: Triton's text format laid out the way Triton's
 * own examples are, with comments that explain each block. This only generates fresh files from
 * typed settings; reading and editing existing configs is the config core's job.
 */
import type { DataTypeName } from '../../core/config/model-config.js';

export interface TensorSpec {
  name: string;
  data_type: DataTypeName;
  /** Dims without the batch dimension when max_batch_size > 0; -1 for a variable dim. */
  dims: number[];
  format?: 'FORMAT_NCHW' | 'FORMAT_NHWC';
  /** Written as `reshape: { shape: [...] }` (a batched scalar is dims [1] with reshape []). */
  reshape?: number[];
  label_filename?: string;
}

/** The settings `gebe init` asks for. */
export interface ScaffoldSettings {
  backend: string;
  maxBatchSize: number;
  preferredBatchSizes: number[];
  maxQueueDelayUs: number;
  instanceCount: number;
}

export interface ConfigSpec extends ScaffoldSettings {
  name: string;
  /** Comment lines (without '# ') for the top of the file. */
  header: string[];
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  /** Append commented-out examples of the optional blocks (the blank template). */
  skeleton?: boolean;
}

const SKELETON = `
# Optional blocks, commented out. Uncomment and edit what you need.
#
# GE backend options (string values): the devices to use, and GE session/graph
# options passed through by prefix, e.g. the gears an NPU graph is compiled for.
# parameters {
#   key: "device_ids"
#   value: { string_value: "0" }
# }
# parameters {
#   key: "graph.ge.dynamicDims"
#   value: { string_value: "1;2;4;8" }
# }
#
# Warm the model up at load so the first request does not pay for compilation
# (\`gebe warmup --write\` adds one entry per batch size).
# model_warmup [
#   {
#     name: "zeros_batch_1"
#     batch_size: 1
#     inputs {
#       key: "input"
#       value: { data_type: TYPE_FP32, dims: [ 4 ], zero_data: true }
#     }
#   }
# ]
`;

export function renderConfig(spec: ConfigSpec): string {
  const lines: string[] = spec.header.map((line) => (line === '' ? '#' : `# ${line}`));
  lines.push(`name: ${quote(spec.name)}`);
  lines.push(`backend: ${quote(spec.backend)}`);
  if (spec.maxBatchSize > 0) {
    lines.push(
      '# The first dimension of every input and output is the batch; dims below leave it out.',
      `max_batch_size: ${spec.maxBatchSize}`,
    );
  } else {
    lines.push('# No batching: dims below are the full tensor shapes.', 'max_batch_size: 0');
  }
  lines.push(...tensorBlock('input', spec.inputs), ...tensorBlock('output', spec.outputs));
  if (spec.maxBatchSize > 0) {
    lines.push(
      '# Requests that arrive close together are merged into one batch. A request waits at most',
      '# max_queue_delay_microseconds for others to join; a lone request (concurrency 1) always',
      '# waits the whole delay, so keep it near one batch-1 inference: 100 us adds little to a',
      '# lone request and still merges concurrent ones. Raise it when throughput under load',
      '# matters more than latency at low load (`gebe perf --concurrency 1,8` shows both).',
      '# `gebe convert` compiles the preferred sizes and max_batch_size as the NPU gears; a batch',
      '# between two gears runs padded up to the next one.',
      'dynamic_batching {',
      ...(spec.preferredBatchSizes.length > 0 ? [`  preferred_batch_size: ${list(spec.preferredBatchSizes)}`] : []),
      `  max_queue_delay_microseconds: ${spec.maxQueueDelayUs}`,
      '}',
    );
  }
  lines.push(
    '# The GE backend runs `count` instance threads; it ignores kind and gpus.',
    'instance_group [',
    '  {',
    `    count: ${spec.instanceCount}`,
    '  }',
    ']',
  );
  return lines.join('\n') + '\n' + (spec.skeleton ? SKELETON : '');
}

function tensorBlock(field: 'input' | 'output', tensors: TensorSpec[]): string[] {
  const out = [`${field} [`];
  tensors.forEach((t, i) => {
    out.push('  {', `    name: ${quote(t.name)}`, `    data_type: ${t.data_type}`);
    if (t.format) out.push(`    format: ${t.format}`);
    out.push(`    dims: ${list(t.dims)}`);
    if (t.reshape) out.push(`    reshape: { shape: ${list(t.reshape)} }`);
    if (t.label_filename) out.push(`    label_filename: ${quote(t.label_filename)}`);
    out.push(i === tensors.length - 1 ? '  }' : '  },');
  });
  out.push(']');
  return out;
}

function list(values: number[]): string {
  return values.length === 0 ? '[ ]' : `[ ${values.join(', ')} ]`;
}

/** A text-format string literal: JSON escaping is a valid subset of protobuf's C-style escapes. */
function quote(value: string): string {
  return JSON.stringify(value);
}
