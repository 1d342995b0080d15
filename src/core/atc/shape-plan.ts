/**
 * What ATC will be asked to compile for a `ge` model: the --input_shape, the gears and the input
 * format, derived from config.pbtxt alone, or the reasons ATC (or gebe convert) would refuse it.
 * `gebe convert` refuses a config with problems; the GE_* lint rules report the same problems, so
 * `gebe validate` passes exactly what `gebe convert` accepts.
 */
import type { ConfigPath } from '../config/ast.js';
import type { ModelConfig } from '../config/model-config.js';
import { dynamicDimCount, INPUT_SHAPE_KEY, DYNAMIC_DIMS_KEY, parseInputShape, type ShapeEntry } from './ge-parameters.js';
import { gearsFromConfig, parameter, type Gears } from './gears.js';

export type AtcProblemKind =
  /** A -1 that no gear fills: ATC compiles fixed shapes plus the gears it is given. */
  | 'dynamic-dim-without-gears'
  /** Batch gears for an input whose graph.ge.inputShape does not free axis 0. */
  | 'batch-gears-fixed-batch'
  /** A gear with more or fewer values than the shape has -1 dims. */
  | 'gear-arity'
  /** Inputs in FORMAT_NCHW and FORMAT_NHWC: ATC takes one --input_format. */
  | 'mixed-formats'
  /** No inputs and no graph.ge.inputShape: nothing to build --input_shape from. */
  | 'no-inputs'
  /** A graph.ge.inputShape or graph.ge.dynamicDims that does not parse (GE_INPUT_SHAPE / GE_DYNAMIC_DIMS report it). */
  | 'malformed';

export interface AtcProblem {
  kind: AtcProblemKind;
  /** Where in the config. */
  at: ConfigPath;
  message: string;
  hint: string;
}

export type AtcInputFormat = 'NCHW' | 'NHWC' | 'ND';

export interface AtcShapePlan {
  entries: ShapeEntry[];
  /** The --input_shape value, e.g. "image:-1,1,28,28". */
  inputShape: string;
  gears: Gears;
  /** `--dynamic_batch_size=…` or `--dynamic_dims=…`; undefined for a static graph. */
  gearArg?: string;
  format: AtcInputFormat;
  /** The batch sizes compiled, when the gears are batch sizes. */
  batchSizes?: number[];
}

export type AtcPlanResult = { ok: true; plan: AtcShapePlan } | { ok: false; problems: AtcProblem[] };

const SHAPE_AT: ConfigPath = ['parameters', INPUT_SHAPE_KEY, 'string_value'];
const DIMS_AT: ConfigPath = ['parameters', DYNAMIC_DIMS_KEY, 'string_value'];
const GEARS_HINT = `write the real size, or free it for ATC with gears: parameters "${INPUT_SHAPE_KEY}" (the shape with -1 where it varies, e.g. "x:-1,3,-1,-1") and "${DYNAMIC_DIMS_KEY}" (one value per -1 in each gear, e.g. "1,224,224;8,448,448"; gebe convert passes them to ATC as --dynamic_dims)`;

const cache = new WeakMap<ModelConfig, AtcPlanResult>();

/** The ATC shape plan of a config (cached per config: several lint rules and convert ask). */
export function planAtcShapes(config: ModelConfig): AtcPlanResult {
  let result = cache.get(config);
  if (!result) {
    result = computePlan(config);
    cache.set(config, result);
  }
  return result;
}

function computePlan(config: ModelConfig): AtcPlanResult {
  const problems: AtcProblem[] = [];
  const explicit = parameter(config, INPUT_SHAPE_KEY);
  const hasDynamicDims = parameter(config, DYNAMIC_DIMS_KEY) !== undefined;
  const batched = Number(config.max_batch_size ?? 0) > 0;
  let entries: ShapeEntry[] = [];
  if (explicit !== undefined) {
    const parsed = parseInputShape(explicit);
    if (!parsed.ok) problems.push({ kind: 'malformed', at: SHAPE_AT, message: `parameters "${INPUT_SHAPE_KEY}" is malformed: ${parsed.message}`, hint: 'for example: "image:-1,3,224,224"; separate inputs with ";"' });
    else entries = parsed.value;
  } else if ((config.input ?? []).length === 0) {
    problems.push({
      kind: 'no-inputs', at: ['name'],
      message: 'the config has no input entries, so the input shapes for ATC are unknown',
      hint: 'add input [ { name, data_type, dims } ] matching the ONNX model (gebe init --from model.onnx writes them)',
    });
  } else {
    entries = (config.input ?? []).map((t, i) => {
      // reshape is the shape the model itself sees; dims is what clients send.
      const field = t.reshape ? 'reshape.shape' : 'dims';
      const shape = (t.reshape ? t.reshape.shape ?? [] : t.dims ?? []).map(Number);
      const axis = shape.findIndex((d) => d < 0);
      if (axis >= 0 && !hasDynamicDims) {
        problems.push({
          kind: 'dynamic-dim-without-gears',
          at: t.reshape ? ['input', i, 'reshape', 'shape', axis] : ['input', i, 'dims', axis],
          message: `input "${t.name}" has a variable dim (${field}[${axis}] = -1); ATC compiles fixed shapes, and no graph.ge.dynamicDims gear gives this dim a size`,
          hint: GEARS_HINT,
        });
      }
      return { name: t.name, dims: batched ? [-1, ...shape] : shape };
    });
  }
  const gears = gearsFromConfig(config);
  if (!gears.ok) problems.push({ kind: 'malformed', at: DIMS_AT, message: `parameters "${DYNAMIC_DIMS_KEY}" is malformed: ${gears.message}`, hint: 'write gears like "1;2;4;8" (one -1) or "1,224;8,448" (two -1 dims)' });
  const format = inputFormat(config, entries, problems);
  if (problems.length > 0 || !gears.ok) return { ok: false, problems };
  return finishPlan(entries, gears.value, format, explicit !== undefined);
}

function finishPlan(entries: ShapeEntry[], gears: Gears, format: AtcInputFormat, explicit: boolean): AtcPlanResult {
  const inputShape = entries.map((e) => `${e.name}:${e.dims.join(',')}`).join(';');
  const dynamicCount = dynamicDimCount(entries);
  const at = explicit ? SHAPE_AT : ['max_batch_size'];
  const fail = (problem: AtcProblem): AtcPlanResult => ({ ok: false, problems: [problem] });
  if (gears.values.length === 0) {
    if (dynamicCount > 0) {
      // The known ATC trap: -1 without gears compiles a model that is not dynamic at all.
      return fail({ kind: 'dynamic-dim-without-gears', at, message: `the input shape "${inputShape}" has -1 but the config gives no gears to compile`, hint: `set max_batch_size (and dynamic_batching.preferred_batch_size) for batch gears, or ${GEARS_HINT}` });
    }
    return { ok: true, plan: { entries, inputShape, gears, format } };
  }
  if (gears.source !== 'graph.ge.dynamicDims') {
    // Batch gears (--dynamic_batch_size) fill axis 0 of every input, and nothing else.
    const other = entries.find((e) => e.dims.slice(1).includes(-1));
    if (other) return fail({ kind: 'dynamic-dim-without-gears', at, message: `the input shape "${inputShape}" frees a dim other than the batch of "${other.name}", which batch gears (--dynamic_batch_size) cannot fill`, hint: GEARS_HINT });
    const fixed = entries.find((e) => e.dims[0] !== -1);
    if (fixed) return fail({ kind: 'batch-gears-fixed-batch', at, message: `max_batch_size compiles batch gears, but the input shape "${inputShape}" fixes the batch dim of "${fixed.name}" (ATC's --dynamic_batch_size needs -1 there)`, hint: `write -1 as the first dim of "${fixed.name}" in ${INPUT_SHAPE_KEY}, or set max_batch_size 0 for a static graph` });
    const sizes = gears.values.map((g) => g[0]!);
    return { ok: true, plan: { entries, inputShape, gears, format, gearArg: `--dynamic_batch_size=${sizes.join(',')}`, batchSizes: sizes } };
  }
  const wrong = gears.values.flatMap((gear, i) => (gear.length === dynamicCount ? [] : [{
    kind: 'gear-arity' as const, at: DIMS_AT,
    message: `gear ${i + 1} "${gear.join(',')}" of ${DYNAMIC_DIMS_KEY} has ${plural(gear.length, 'value')}, but ${explicit ? INPUT_SHAPE_KEY : 'the input shape'} "${inputShape}" has ${plural(dynamicCount, '-1 dim')}`,
    hint: `give every gear ${dynamicCount} comma-separated value${dynamicCount === 1 ? '' : 's'}, one per -1`,
  }]));
  if (wrong.length > 0) return { ok: false, problems: wrong };
  const batchOnly = entries.every((e) => e.dims[0] === -1 && !e.dims.slice(1).includes(-1));
  const sameValues = gears.values.every((g) => g.every((v) => v === g[0]));
  if (batchOnly && sameValues) {
    const batch = gears.values.map((g) => g[0]!);
    return { ok: true, plan: { entries, inputShape, gears, format, gearArg: `--dynamic_batch_size=${batch.join(',')}`, batchSizes: batch } };
  }
  // ATC takes dynamic dims other than the batch only with the ND format.
  return { ok: true, plan: { entries, inputShape, gears, format: 'ND', gearArg: `--dynamic_dims=${gears.values.map((g) => g.join(',')).join(';')}` } };
}

/**
 * One --input_format for all inputs: NCHW/NHWC describe 4-D image tensors, so they apply only
 * when every input has rank 4 (NHWC when the config says so); anything else is ND.
 */
function inputFormat(config: ModelConfig, entries: ShapeEntry[], problems: AtcProblem[]): AtcInputFormat {
  const inputs = config.input ?? [];
  const nhwc = inputs.findIndex((t) => t.format === 'FORMAT_NHWC');
  const nchw = inputs.findIndex((t) => t.format === 'FORMAT_NCHW');
  if (nhwc >= 0 && nchw >= 0) {
    problems.push({
      kind: 'mixed-formats', at: ['input', Math.max(nhwc, nchw), 'format'],
      message: `inputs mix FORMAT_NCHW ("${inputs[nchw]!.name}") and FORMAT_NHWC ("${inputs[nhwc]!.name}"); ATC takes one --input_format for all inputs`,
      hint: 'use one format for every input, or convert the model by hand with atc',
    });
  }
  if (entries.length === 0 || entries.some((e) => e.dims.length !== 4)) return 'ND';
  return nhwc >= 0 ? 'NHWC' : 'NCHW';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
