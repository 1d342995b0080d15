/**
 * `gebe warmup [repo] [-m model]`: loads each model into the executor (or addresses a running
 * server with -u), runs its warmup per batch size and prints what a cold start costs; `--write`
 * adds model_warmup entries to config.pbtxt, keeping every other byte of the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import { writeModelWarmup } from '../../core/config/index.js';
import { decoupledOverHttp, openGrpcTarget, openHttpTarget } from '../infer/remote-target.js';
import { isDecoupled } from '../../core/config/model-config.js';
import { openLocalTarget } from '../infer/local-target.js';
import type { InferTarget } from '../infer/target.js';
import { formatRows, runWarmupStep, type WarmupRow } from './measure.js';
import type { WarmupOptions } from './options.js';
import { planWarmup, warmupEntries } from '../../core/warmup/plan.js';

export interface ModelWarmupResult {
  model: string;
  version: string;
  where: string;
  source: 'model_warmup' | 'default';
  rows: WarmupRow[];
  /** The config file --write changed. */
  wrote?: string;
}

export async function runWarmup(opts: WarmupOptions, deps: { io: IO }): Promise<ModelWarmupResult[]> {
  const { io } = deps;
  const repo = path.resolve(io.cwd, opts.repo);
  const names = opts.model !== undefined ? [opts.model] : listModels(repo, io.cwd);
  const results: ModelWarmupResult[] = [];
  const failed: string[] = [];
  for (const name of names) {
    try {
      const target = !opts.url
        ? await openLocalTarget(repo, name, undefined, io.cwd)
        : opts.protocol === 'grpc' ? await openGrpcTarget(opts.url, name, undefined, repo, opts.connection) : await openHttpTarget(opts.url, name, undefined, repo, opts.connection);
      try {
        results.push(await warmOne(target, opts, io));
      } finally {
        await target.close();
      }
    } catch (err) {
      // One broken model must not hide the others' results; the command still fails at the end.
      if (names.length === 1 || !(err instanceof GebeError)) throw err;
      failed.push(name);
      io.stderr.write(`${colors(io, 'stderr').red('error')}: ${name}: ${err.message}\n`);
    }
  }
  if (opts.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (failed.length > 0) {
    throw new GebeError(`warmup failed for ${failed.length} of ${names.length} models (${failed.join(', ')})`, { hint: 'gebe validate shows what is wrong with them' });
  }
  return results;
}

async function warmOne(target: InferTarget, opts: WarmupOptions, io: IO): Promise<ModelWarmupResult> {
  const c = colors(io);
  const model = target.description;
  const config = target.config ?? { name: model.name, max_batch_size: model.maxBatchSize };
  const shownConfig = target.configFile ? path.relative(io.cwd, target.configFile) : 'config';
  if (opts.url && !target.stream && isDecoupled(config)) throw decoupledOverHttp(model.name);
  const plan = planWarmup(config, model, target.gears, target.modelDir, shownConfig);
  const rows: WarmupRow[] = [];
  for (const step of plan.steps) {
    rows.push(await runWarmupStep(step, { compile: target.compile, infer: (inputs) => target.infer(inputs, model.outputs.map((o) => o.name)) }, opts.runs));
  }
  const result: ModelWarmupResult = { model: model.name, version: model.version, where: target.where, source: plan.source, rows };
  if (!opts.json) {
    const what = plan.source === 'model_warmup' ? 'model_warmup entries' : target.gears.length > 0 ? 'one warmup per gear' : 'one warmup per preferred batch size and max_batch_size';
    io.stdout.write(`${c.bold(model.name)} v${model.version} ${c.dim(`(${target.where}; ${what})`)}\n${formatRows(rows)}`);
  }
  if (opts.write) {
    if (plan.source === 'model_warmup') {
      if (!opts.json) io.stdout.write(`  ${shownConfig} already has model_warmup entries: left unchanged\n`);
    } else if (!target.configFile) {
      throw new GebeError(`--write: no local config.pbtxt for model "${model.name}" under the repository`, { hint: 'pass the repository that holds the model as the first argument' });
    } else {
      const text = fs.readFileSync(target.configFile, 'utf8');
      const sizes = plan.steps.map((s) => s.batchSize);
      fs.writeFileSync(target.configFile, writeModelWarmup(text, target.configFile, warmupEntries(config, sizes)));
      result.wrote = target.configFile;
      if (!opts.json) io.stdout.write(`  ${c.green('wrote')} model_warmup for batch sizes ${sizes.join(', ')} to ${shownConfig}\n`);
    }
  }
  return result;
}

function listModels(repo: string, cwd: string): string[] {
  const shown = path.relative(cwd, repo) || '.';
  if (!fs.existsSync(repo) || !fs.statSync(repo).isDirectory()) {
    throw new GebeError(`${shown} is not a model repository directory`, { hint: 'pass the repository path, or create one with gebe init' });
  }
  const names = fs.readdirSync(repo).filter((d) => fs.existsSync(path.join(repo, d, 'config.pbtxt'))).sort();
  if (names.length === 0) throw new GebeError(`${shown} has no models (no <model>/config.pbtxt)`, { hint: 'create one with gebe init <name>' });
  return names;
}
