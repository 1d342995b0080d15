/**
 * `gebe init <model_name>`: scaffolds `<repo>/<model_name>/config.pbtxt` and `1/<model file>` from
 * a template or an ONNX file, asking for the settings on a terminal and never without one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError, UsageError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import { cliInvocation } from '../../cli-invocation.js';
import type { InitOptions } from './options.js';
import { DEFAULT_REPO } from './options.js';
import type { Prompter } from './prompter.js';
import { renderConfig, type ConfigSpec, type ScaffoldSettings, type TensorSpec } from './render-config.js';
import { loadTemplate, TEMPLATE_NAMES, templateSamples, type Template, type TemplateName } from './templates.js';
import { readOnnxSignature } from './onnx-signature.js';
import { configTensorsFromOnnx, type FreeDim } from './from-onnx.js';
import { freeDimDecisions } from './decisions.js';
import { gearsFromConfig } from '../../core/atc/gears.js';
import type { ModelConfig } from '../../core/config/model-config.js';

export interface InitDeps {
  io: IO;
  /** Created only when a question has to be asked on a terminal. */
  prompter: () => Prompter;
}

export interface InitResult {
  modelDir: string;
  files: string[];
  settings: ScaffoldSettings;
  source: string;
}

/** Where the model comes from: a template, or the user's ONNX file. */
type Source =
  | { kind: 'template'; template: Template }
  | { kind: 'onnx'; file: string; inputs: TensorSpec[]; outputs: TensorSpec[]; batchable: boolean; freeInputDims: FreeDim[] };

/** Settings for `--from` models, which bring no defaults of their own. */
const ONNX_DEFAULTS: ScaffoldSettings = {
  backend: 'ge', maxBatchSize: 16, preferredBatchSizes: [4, 8, 16], maxQueueDelayUs: 100, instanceCount: 1,
};

const SETTING_FLAGS = '--backend, --max-batch-size, --preferred-batch-sizes, --max-queue-delay-us, --instance-count';

export async function runInit(opts: InitOptions, deps: InitDeps): Promise<InitResult> {
  const { io } = deps;
  const repo = path.resolve(io.cwd, opts.repo);
  const modelDir = path.join(repo, opts.modelName);
  checkTarget(modelDir, opts);

  const canAsk = io.stdinIsTTY && io.stdoutIsTTY && !opts.yes;
  let prompter: Prompter | undefined;
  const ask = (): Prompter | undefined => {
    if (!canAsk) return undefined;
    prompter ??= deps.prompter();
    return prompter;
  };
  if (!canAsk && !opts.yes) {
    throw new UsageError(
      'gebe init asks for its settings on a terminal, and stdin/stdout is not one here',
      `pass --yes to take the defaults (change any with --template or --from, ${SETTING_FLAGS})`,
    );
  }

  const source = await chooseSource(opts, io.cwd, ask());
  const settings = await chooseSettings(opts, source, ask());

  const decisions = source.kind === 'onnx'
    ? freeDimDecisions(source.freeInputDims, source.inputs, settings.maxBatchSize, gearSizes(settings), settings.backend)
    : [];
  const spec: ConfigSpec = {
    name: opts.modelName,
    ...settings,
    ...(source.kind === 'template'
      ? {
          header: source.template.header,
          inputs: unbatched(source.template.inputs, settings),
          outputs: unbatched(source.template.outputs, settings),
          skeleton: source.template.skeleton,
        }
      : {
          header: [
            `Scaffolded by \`gebe init --from ${path.basename(source.file)}\`: inputs and outputs match the`,
            "model's graph (names, datatypes, dims; -1 where the model leaves a dim free).",
            ...(decisions.length > 0 ? ['', ...decisions] : []),
          ],
          inputs: source.inputs,
          outputs: source.outputs,
        }),
  };
  const files = writeModel(modelDir, spec, source, opts.force);
  printNextSteps(io, opts, modelDir, files, source);
  if (decisions.length > 0) io.stdout.write(`\n${colors(io).yellow('Decide')}: ${decisions.join('\n        ')}\n`);
  return { modelDir, files, settings, source: source.kind === 'template' ? source.template.name : source.file };
}

/**
 * Template tensors are written per item (the model has a batch dim). Without batching, dims are
 * the model's full shapes, so the batch dim comes back: as 1 for the GE backend, whose ATC-compiled
 * graph has fixed shapes (one item per request), as -1 for the others. A format then no longer
 * applies, as Triton allows FORMAT_NCHW/NHWC only with exactly 3 dims.
 */
function unbatched(tensors: TensorSpec[], settings: ScaffoldSettings): TensorSpec[] {
  if (settings.maxBatchSize > 0) return tensors;
  const batch = settings.backend === 'ge' ? 1 : -1;
  return tensors.map(({ format: _format, ...t }) => ({ ...t, dims: [batch, ...t.dims] }));
}

/** The batch gears `gebe convert` will compile for these settings. */
function gearSizes(settings: ScaffoldSettings): number[] {
  const gears = gearsFromConfig({ max_batch_size: settings.maxBatchSize, dynamic_batching: { preferred_batch_size: settings.preferredBatchSizes } } as ModelConfig);
  return gears.ok ? gears.value.values.map((g) => g[0]!) : [];
}

function checkTarget(modelDir: string, opts: InitOptions): void {
  if (!fs.existsSync(modelDir)) return;
  if (!fs.statSync(modelDir).isDirectory()) {
    throw new GebeError(`${modelDir} exists and is not a directory`, { hint: 'choose another model name or --repo' });
  }
  if (fs.readdirSync(modelDir).length > 0 && !opts.force) {
    throw new GebeError(`model "${opts.modelName}" already exists at ${modelDir}`, {
      hint: 'pass --force to replace it (its directory is deleted first), or choose another name',
    });
  }
}

async function chooseSource(opts: InitOptions, cwd: string, prompter: Prompter | undefined): Promise<Source> {
  if (opts.from !== undefined) {
    const file = path.resolve(cwd, opts.from);
    const tensors = configTensorsFromOnnx(readOnnxSignature(file), file);
    return { kind: 'onnx', file, ...tensors };
  }
  let name: TemplateName = opts.template ?? 'mnist';
  if (opts.template === undefined && prompter) {
    name = await prompter.select({
      message: 'Template',
      choices: TEMPLATE_NAMES.map((t) => ({ name: t, value: t, description: loadTemplate(t).description })),
      default: 'mnist',
    });
  }
  return { kind: 'template', template: loadTemplate(name) };
}

async function chooseSettings(opts: InitOptions, source: Source, prompter: Prompter | undefined): Promise<ScaffoldSettings> {
  const defaults = source.kind === 'template' ? source.template.defaults : ONNX_DEFAULTS;
  const canBatch = source.kind === 'template' || source.batchable;
  if (!canBatch && opts.maxBatchSize !== undefined && opts.maxBatchSize > 0) {
    throw new UsageError(
      `--max-batch-size ${opts.maxBatchSize}: ${path.basename(opts.from!)} has a fixed first dimension on some input or output, so Triton cannot batch it`,
      'drop --max-batch-size (the config gets max_batch_size 0), or export the model with a dynamic batch dimension',
    );
  }
  const backend = opts.backend ?? (prompter
    ? await prompter.select({
        message: 'Backend',
        choices: [
          { name: 'ge', value: 'ge', description: "Triton's GE backend for Ascend NPUs (gebe serve runs it on the CPU elsewhere)" },
          { name: 'onnxruntime', value: 'onnxruntime', description: "Triton's ONNX Runtime backend" },
        ],
        default: defaults.backend,
      })
    : defaults.backend);
  let maxBatchSize = opts.maxBatchSize ?? (canBatch ? defaults.maxBatchSize : 0);
  if (opts.maxBatchSize === undefined && canBatch && prompter) {
    maxBatchSize = await prompter.number({ message: 'max_batch_size (0 disables batching)', default: defaults.maxBatchSize, min: 0 });
  }
  if (maxBatchSize === 0) {
    // Without batching there is nothing to prefer or delay; dynamic_batching is left out.
    const instanceCount = opts.instanceCount ?? (prompter ? await askInstances(prompter, defaults) : defaults.instanceCount);
    return { backend, maxBatchSize, preferredBatchSizes: [], maxQueueDelayUs: 0, instanceCount };
  }
  const fitting = defaults.preferredBatchSizes.filter((s) => s <= maxBatchSize);
  const defaultPreferred = fitting.length > 0 ? fitting : [maxBatchSize];
  let preferredBatchSizes = opts.preferredBatchSizes ?? defaultPreferred;
  if (opts.preferredBatchSizes === undefined && prompter) {
    const answer = await prompter.text({
      message: 'Preferred batch sizes (comma-separated; also the NPU gears)',
      default: defaultPreferred.join(','),
      validate: (value) => sizesProblem(value, maxBatchSize) ?? true,
    });
    preferredBatchSizes = parseSizes(answer);
  }
  const tooBig = preferredBatchSizes.filter((s) => s > maxBatchSize);
  if (tooBig.length > 0) {
    throw new UsageError(
      `--preferred-batch-sizes ${tooBig.join(',')} exceed max_batch_size ${maxBatchSize}; Triton rejects such a config`,
      `use sizes up to ${maxBatchSize}, or raise --max-batch-size`,
    );
  }
  // Preferred sizes without a delay are never waited for (validate warns), so a delay is required then.
  const minDelay = preferredBatchSizes.length > 0 ? 1 : 0;
  const maxQueueDelayUs = opts.maxQueueDelayUs ?? (prompter
    ? await prompter.number({ message: 'Max queue delay (microseconds a request may wait to be batched)', default: Math.max(minDelay, defaults.maxQueueDelayUs), min: minDelay })
    : defaults.maxQueueDelayUs);
  if (maxQueueDelayUs < minDelay) {
    throw new UsageError(
      '--max-queue-delay-us 0 with preferred batch sizes: the batcher would never wait to fill them',
      'pass a delay such as --max-queue-delay-us 100, or --preferred-batch-sizes "" to batch whatever is queued',
    );
  }
  const instanceCount = opts.instanceCount ?? (prompter ? await askInstances(prompter, defaults) : defaults.instanceCount);
  return { backend, maxBatchSize, preferredBatchSizes, maxQueueDelayUs, instanceCount };
}

function askInstances(prompter: Prompter, defaults: ScaffoldSettings): Promise<number> {
  return prompter.number({ message: 'Instance count (model copies running in parallel)', default: defaults.instanceCount, min: 1 });
}

function parseSizes(text: string): number[] {
  return [...new Set(text.split(',').map((s) => Number(s.trim())))].sort((a, b) => a - b);
}

function sizesProblem(text: string, max: number): string | undefined {
  const parts = text.split(',').map((s) => s.trim());
  if (text.trim() === '' || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) return 'enter positive integers separated by commas, e.g. 4,8,16';
  const big = parts.filter((p) => Number(p) > max);
  return big.length > 0 ? `${big.join(',')} exceed max_batch_size ${max}` : undefined;
}

/** Writes the model directory; returns the written paths relative to it. */
function writeModel(modelDir: string, spec: ConfigSpec, source: Source, force: boolean): string[] {
  if (force) fs.rmSync(modelDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(modelDir, '1'), { recursive: true });
  fs.writeFileSync(path.join(modelDir, 'config.pbtxt'), renderConfig(spec));
  const files = ['config.pbtxt'];
  if (source.kind === 'template') {
    for (const rel of source.template.files) {
      fs.mkdirSync(path.dirname(path.join(modelDir, rel)), { recursive: true });
      fs.copyFileSync(path.join(source.template.dir, rel), path.join(modelDir, rel));
      files.push(rel);
    }
  } else {
    fs.copyFileSync(source.file, path.join(modelDir, '1', 'model.onnx'));
    files.push('1/model.onnx');
  }
  return files;
}

function printNextSteps(io: IO, opts: InitOptions, modelDir: string, files: string[], source: Source): void {
  const c = colors(io);
  const shown = path.relative(io.cwd, modelDir) || '.';
  const origin = source.kind === 'template' ? `template ${source.template.name}` : `from ${path.basename(source.file)}`;
  const repoArg = opts.repo === DEFAULT_REPO ? '' : ` ${shellQuote(opts.repo)}`;
  const repoFlag = opts.repo === DEFAULT_REPO ? '' : ` --model-repository ${shellQuote(opts.repo)}`;
  const gebe = cliInvocation(io);
  const samples = source.kind === 'template' ? templateSamples(source.template).filter((f) => f.endsWith('.png')) : [];
  const sample = samples.find((f) => path.basename(f) === 'digit-7.png') ?? samples[0];
  const inferInput = sample ? `--input ${shellQuote(sample)}` : '--random';
  io.stdout.write(
    `${c.green('Created')} ${shown} (${origin}):\n` +
      files.map((f) => `  ${f}\n`).join('') +
      `\nNext steps:\n` +
      `  ${gebe} validate${repoArg}   ${c.dim('# lint the repository')}\n` +
      `  ${gebe} serve${repoArg}      ${c.dim('# serve it over KServe v2 HTTP/gRPC')}\n` +
      `  ${gebe} infer -m ${opts.modelName}${repoFlag} ${inferInput}\n`,
  );
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
