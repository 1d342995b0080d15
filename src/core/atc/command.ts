/**
 * Builds the ATC command line that compiles a `ge`-backend model's ONNX file into an offline
 * model (.om) with the shapes and gears its config.pbtxt describes.
 */
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import { gearsFromConfig, INPUT_SHAPE_KEY, parameter, type Gears } from './gears.js';

export interface AtcCommandInput {
  config: ModelConfig;
  /** For messages. */
  configFile: string;
  modelFile: string;
  /** `<version dir>/model`: ATC appends ".om". */
  outputBase: string;
  socVersion: string;
  precisionMode?: string;
  log?: string;
}

export interface AtcCommand {
  args: string[];
  /** The --input_shape value, e.g. "image:-1,1,28,28". */
  inputShape: string;
  gears: Gears;
  /** The batch sizes compiled, when the gears are batch sizes. */
  batchSizes?: number[];
  omFile: string;
}

/** ATC's --framework for ONNX. */
const FRAMEWORK_ONNX = '5';
export const ATC_LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'null'] as const;

interface ShapeEntry {
  name: string;
  dims: number[];
}

export function buildAtcCommand(input: AtcCommandInput): AtcCommand {
  const { config, configFile } = input;
  const entries = inputShapeEntries(config, configFile);
  const inputShape = entries.map((e) => `${e.name}:${e.dims.join(',')}`).join(';');
  const dynamicCount = entries.reduce((n, e) => n + e.dims.filter((d) => d === -1).length, 0);
  const gears = gearsFromConfig(config);
  const args = [`--model=${input.modelFile}`, `--framework=${FRAMEWORK_ONNX}`, `--output=${input.outputBase}`, `--input_shape=${inputShape}`];

  let gearArg: string | undefined;
  let format = inputFormat(config, configFile);
  if (gears.values.length === 0) {
    if (dynamicCount > 0) {
      // The known ATC trap: -1 without gears compiles a model that is not dynamic at all.
      throw new GebeError(`${configFile}: the input shape "${inputShape}" has -1 but the config gives no gears to compile`, {
        hint: `set max_batch_size (and dynamic_batching.preferred_batch_size), or parameters "${INPUT_SHAPE_KEY}"/"graph.ge.dynamicDims"`,
      });
    }
  } else if (gears.source !== 'graph.ge.dynamicDims') {
    // Batch gears: every input's batch dim is the one -1 (inputShapeEntries rejects other -1s).
    gearArg = `--dynamic_batch_size=${gears.values.map((g) => g[0]).join(',')}`;
  } else {
    // GE's dynamicDims: one value per -1 across all inputs, in order.
    const wrong = gears.values.find((g) => g.length !== dynamicCount);
    if (wrong) {
      throw new GebeError(
        `${configFile}: gear "${wrong.join(',')}" (from ${gears.source}) has ${wrong.length} value(s) but the input shape "${inputShape}" has ${dynamicCount} -1 dim(s)`,
        { hint: 'give one value per -1 dim in each gear (gears separated by ";", values by ",")' },
      );
    }
    const batchOnly = entries.every((e) => e.dims.slice(1).every((d) => d !== -1) && e.dims[0] === -1);
    const sameValues = gears.values.every((g) => g.every((v) => v === g[0]));
    if (batchOnly && sameValues) {
      gearArg = `--dynamic_batch_size=${gears.values.map((g) => g[0]).join(',')}`;
    } else {
      // ATC takes dynamic dims other than the batch only with the ND format.
      gearArg = `--dynamic_dims=${gears.values.map((g) => g.join(',')).join(';')}`;
      format = 'ND';
    }
  }
  args.push(`--input_format=${format}`);
  if (gearArg) args.push(gearArg);
  args.push(`--soc_version=${input.socVersion}`);
  if (input.precisionMode) args.push(`--precision_mode=${input.precisionMode}`);
  if (input.log) args.push(`--log=${input.log}`);
  const sizes = gearArg?.startsWith('--dynamic_batch_size') ? gears.values.map((g) => g[0]!) : undefined;
  return { args, inputShape, gears, batchSizes: sizes, omFile: `${input.outputBase}.om` };
}

/** From `graph.ge.inputShape` when set, else the config inputs with the batch dim as -1. */
function inputShapeEntries(config: ModelConfig, configFile: string): ShapeEntry[] {
  const explicit = parameter(config, INPUT_SHAPE_KEY);
  if (explicit !== undefined) return parseInputShape(explicit, configFile);
  const inputs = config.input ?? [];
  if (inputs.length === 0) {
    throw new GebeError(`${configFile}: no input entries, so the input shapes for ATC are unknown`, {
      hint: 'add input [ { name, data_type, dims } ] matching the ONNX model (gebe init --from model.onnx writes them)',
    });
  }
  const batched = (config.max_batch_size ?? 0) > 0;
  return inputs.map((t, i) => {
    // reshape is the shape the model itself sees; dims is what clients send.
    const shape = t.reshape ? t.reshape.shape : t.dims;
    const at = shape.findIndex((d) => d < 0);
    if (at >= 0 && parameter(config, 'graph.ge.dynamicDims') === undefined) {
      throw new GebeError(
        `${configFile}: input "${t.name}" (input[${i}]) has a variable dim (${t.reshape ? 'reshape.shape' : 'dims'}[${at}] = -1); ATC compiles fixed shapes`,
        { hint: `write the real size in ${t.reshape ? 'reshape.shape' : 'dims'}, or set parameters "${INPUT_SHAPE_KEY}" and "graph.ge.dynamicDims" with gears for it` },
      );
    }
    return { name: t.name, dims: batched ? [-1, ...shape] : [...shape] };
  });
}

function parseInputShape(text: string, configFile: string): ShapeEntry[] {
  return text.split(';').map((part) => {
    const colon = part.lastIndexOf(':');
    const dims = part.slice(colon + 1).split(',').map((d) => Number(d.trim()));
    if (colon <= 0 || dims.some((d) => !Number.isInteger(d) || (d < 1 && d !== -1))) {
      throw new GebeError(`${configFile}: parameters "${INPUT_SHAPE_KEY}" has "${part}", expected "name:d1,d2,..." (-1 for a dynamic dim)`, {
        hint: 'for example: "image:-1,3,224,224"; separate inputs with ";"',
      });
    }
    return { name: part.slice(0, colon), dims };
  });
}

function inputFormat(config: ModelConfig, configFile: string): string {
  const formats = new Set((config.input ?? []).map((t) => t.format).filter((f) => f && f !== 'FORMAT_NONE'));
  if (formats.size > 1) {
    throw new GebeError(`${configFile}: inputs mix FORMAT_NCHW and FORMAT_NHWC; ATC takes one --input_format for all inputs`, {
      hint: 'use one format for every input, or convert the model by hand with atc',
    });
  }
  // NCHW is ATC's default for ONNX models.
  return formats.has('FORMAT_NHWC') ? 'NHWC' : 'NCHW';
}

/** The command as a user would paste it into a shell. */
export function formatCommand(executable: string, args: string[]): string {
  return [executable, ...args].map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:=,@%+-]+$/.test(arg)) return arg;
  const eq = arg.indexOf('=');
  // Keep "--flag=" readable: quote only the value.
  if (arg.startsWith('--') && eq > 0 && /^[A-Za-z0-9_-]+$/.test(arg.slice(2, eq))) {
    return `${arg.slice(0, eq + 1)}'${arg.slice(eq + 1).replace(/'/g, `'\\''`)}'`;
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function relativeTo(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
