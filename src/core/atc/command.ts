/**
 * Builds the ATC command line that compiles a `ge`-backend model's ONNX file into an offline
 * model (.om) with the shapes and gears its config.pbtxt describes.
 */
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import type { Gears } from './gears.js';
import { planAtcShapes } from './shape-plan.js';

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

/** Throws the first problem planAtcShapes finds (the lint rules report them all), naming the config. */
export function buildAtcCommand(input: AtcCommandInput): AtcCommand {
  const planned = planAtcShapes(input.config);
  if (!planned.ok) {
    const first = planned.problems[0]!;
    throw new GebeError(`${input.configFile}: ${first.message}`, { hint: first.hint });
  }
  const { plan } = planned;
  const args = [`--model=${input.modelFile}`, `--framework=${FRAMEWORK_ONNX}`, `--output=${input.outputBase}`, `--input_shape=${plan.inputShape}`, `--input_format=${plan.format}`];
  if (plan.gearArg) args.push(plan.gearArg);
  args.push(`--soc_version=${input.socVersion}`);
  if (input.precisionMode) args.push(`--precision_mode=${input.precisionMode}`);
  if (input.log) args.push(`--log=${input.log}`);
  return { args, inputShape: plan.inputShape, gears: plan.gears, batchSizes: plan.batchSizes, omFile: `${input.outputBase}.om` };
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
