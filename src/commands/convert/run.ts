/**
 * `gebe convert [model dir | repo]`: compiles each `ge`-backend model's ONNX file to an offline
 * model with ATC, using the shapes and gears its config.pbtxt describes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import { cliInvocation } from '../../cli-invocation.js';
import { buildAtcCommand, formatCommand, relativeTo, type AtcCommand } from '../../core/atc/command.js';
import { findErrorCodes } from '../../core/atc/error-codes.js';
import { findAtc } from '../../core/atc/find-atc.js';
import { inspectOm } from '../../core/atc/om-header.js';
import { runAtc } from '../../core/atc/run-atc.js';
import { detectSocVersion } from '../../core/atc/soc-version.js';
import type { ConvertOptions } from './options.js';
import { findConvertibleModels, type ConvertibleModel } from './targets.js';

export interface ConvertDeps {
  io: IO;
}

export interface ConvertOutcome {
  model: string;
  command: string;
  omFile: string;
  ok: boolean;
}

export interface ConvertResult {
  outcomes: ConvertOutcome[];
  failed: number;
}

export async function runConvert(opts: ConvertOptions, deps: ConvertDeps): Promise<ConvertResult> {
  const { io } = deps;
  const c = colors(io);
  const models = findConvertibleModels(path.resolve(io.cwd, opts.target), opts, io);
  const soc = await resolveSocVersion(opts, io);
  const socVersion = soc.socVersion ?? SOC_PLACEHOLDER;
  // Looked up before anything runs, so a shell without CANN fails once, up front.
  const atc = opts.dryRun ? 'atc' : findAtc(io.env);

  const outcomes: ConvertOutcome[] = [];
  for (const model of models) {
    const plan = buildAtcCommand({
      config: model.config,
      configFile: relativeTo(io.cwd, model.configFile),
      modelFile: model.onnxFile,
      outputBase: path.join(model.versionDir, 'model'),
      socVersion,
      precisionMode: opts.precisionMode,
      log: opts.log,
    });
    // The placeholder stays visible as <SOC> (unquoted, so a shell refuses to run it as is).
    const command = formatCommand(atc, plan.args).replace(`'--soc_version=${SOC_PLACEHOLDER}'`, `--soc_version=${SOC_PLACEHOLDER}`).replace(`--soc_version='${SOC_PLACEHOLDER}'`, `--soc_version=${SOC_PLACEHOLDER}`);
    if (opts.dryRun) {
      io.stdout.write(`${command}\n`);
      const padding = paddingNote(plan);
      if (padding) io.stderr.write(`${c.dim('note')}: ${model.name}: ${padding}\n`);
      outcomes.push({ model: model.name, command, omFile: plan.omFile, ok: true });
      continue;
    }
    const ok = await convertOne(io, atc, model, plan);
    outcomes.push({ model: model.name, command, omFile: plan.omFile, ok });
  }
  if (opts.dryRun && !soc.socVersion) {
    io.stderr.write(`${c.dim('note')}: --soc_version=${SOC_PLACEHOLDER} is a placeholder (${soc.reason}): on the Ascend host, run \`npu-smi info\` and pass "Ascend" + the chip name it lists, e.g. --soc-version Ascend310P3\n`);
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  if (!opts.dryRun && models.length > 1) {
    io.stdout.write(`\n${failed === 0 ? c.green('converted') : c.red('failed')}: ${models.length - failed} of ${models.length} models\n`);
  }
  return { outcomes, failed };
}

async function convertOne(io: IO, atc: string, model: ConvertibleModel, plan: AtcCommand): Promise<boolean> {
  const c = colors(io);
  const err = colors(io, 'stderr');
  const logFile = path.join(model.versionDir, 'atc.log');
  const shownLog = relativeTo(io.cwd, logFile);
  // A stale .om from an earlier run must not pass for this run's result.
  fs.rmSync(plan.omFile, { force: true });
  // ATC leaves fusion_result.json and kernel_meta/ in its working directory: the user's, as if they had run it.
  const run = await runAtc(atc, plan.args, { io, logFile, label: `${model.name} v${model.version}`, cwd: io.cwd });
  const codes = findErrorCodes(run.output);
  if (run.exitCode !== 0 || run.signal) {
    io.stderr.write(`${err.red('error')}: atc failed for model "${model.name}" (${run.signal ? `signal ${run.signal}` : `exit code ${run.exitCode}`})\n`);
    for (const code of codes) {
      io.stderr.write(`  ${code.code[0] === 'E' ? err.red(code.code) : err.yellow(code.code)}  ${code.hint}\n`);
      io.stderr.write(`          ${err.dim(code.line)}\n`);
    }
    if (codes.length === 0) io.stderr.write(`  ATC printed no error code; the last lines were:\n${lastLines(run.output, 5)}`);
    io.stderr.write(`  full log: ${shownLog}\n`);
    return false;
  }
  const header = inspectOm(plan.omFile);
  const shownOm = relativeTo(io.cwd, plan.omFile);
  if (header.format === 'invalid') {
    io.stderr.write(`${err.red('error')}: atc reported success but ${shownOm} is not a valid offline model: ${header.problem}\n  full log: ${shownLog}\n`);
    return false;
  }
  const size = fs.statSync(plan.omFile).size;
  const gears = plan.batchSizes ? `batch sizes ${plan.batchSizes.join(', ')}` : plan.gears.values.length > 0 ? `dims ${plan.gears.values.map((g) => g.join(',')).join('; ')}` : 'static shape';
  io.stdout.write(`${c.green('converted')} ${model.name} v${model.version} → ${shownOm} (${formatBytes(size)}, ${gears})\n`);
  if (header.format === 'om') {
    const dynamic = header.isDynamic ? 'dynamic' : 'static';
    io.stdout.write(`  header: IMOD, name "${header.name}", ${dynamic}${header.platformVersion ? `, platform ${header.platformVersion}` : ''}\n`);
    if (plan.gears.values.length > 0 && !header.isDynamic) {
      io.stdout.write(`  ${c.yellow('note')}: gears were requested but the header's is_unknow_model flag is 0; check the log\n`);
    }
  } else {
    io.stdout.write('  header: OM2 archive (ZIP); its header is not checked\n');
  }
  for (const code of codes.filter((x) => x.code.startsWith('W'))) io.stdout.write(`  ${c.yellow(code.code)}  ${code.hint}\n`);
  io.stdout.write(`  log: ${shownLog}\n  next: ${cliInvocation(io)} warmup ${relativeTo(io.cwd, path.dirname(model.modelDir))} -m ${model.name}\n`);
  return true;
}

const SOC_PLACEHOLDER = '<SOC>';

/** The SoC from --soc-version or npu-smi; a dry run goes on without one (the command shows a placeholder). */
async function resolveSocVersion(opts: ConvertOptions, io: IO): Promise<{ socVersion?: string; reason?: string }> {
  if (opts.socVersion) return { socVersion: opts.socVersion };
  const detected = await detectSocVersion(io.env);
  if (detected.socVersion) return { socVersion: detected.socVersion };
  if (opts.dryRun) return { reason: detected.reason };
  throw new GebeError(`--soc-version is needed: ${detected.reason}`, {
    hint: 'pass the target chip, e.g. --soc-version Ascend310P3 (run npu-smi info on the target host for its name)',
  });
}

/** How the executor runs a batch between gears: padded with zeroed rows up to the next gear. */
function paddingNote(plan: AtcCommand): string | undefined {
  const sizes = plan.batchSizes;
  if (!sizes || sizes.length === 0 || sizes[0] === 1) return undefined;
  const smallest = sizes[0]!;
  return `the .om runs batch sizes ${sizes.join(', ')} only: a lone request runs padded to a batch of ${smallest} ` +
    `(${smallest - 1} zeroed row${smallest === 2 ? '' : 's'} computed and dropped), and any batch between two gears up to the next; ` +
    `to run single requests unpadded, compile a gear of 1 with parameters "graph.ge.inputShape" "${plan.inputShape}" and "graph.ge.dynamicDims" "${[1, ...sizes].join(';')}"`;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-n).map((l) => `    ${l}\n`).join('');
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
