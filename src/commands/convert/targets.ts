/**
 * Which models `gebe convert` compiles: the model directory given, or every `ge`-backend model of
 * the repository given; for each, its config, the version directory and the one ONNX file in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { IO } from '../../io.js';
import { parseModelConfig, type ModelConfig } from '../../core/config/index.js';
import { relativeTo } from '../../core/atc/command.js';
import type { ConvertOptions } from './options.js';

export interface ConvertibleModel {
  name: string;
  modelDir: string;
  configFile: string;
  config: ModelConfig;
  version: number;
  versionDir: string;
  onnxFile: string;
}

const CONFIG = 'config.pbtxt';

export function findConvertibleModels(target: string, opts: Pick<ConvertOptions, 'model' | 'modelVersion'>, io: IO): ConvertibleModel[] {
  const shown = relativeTo(io.cwd, target) || '.';
  if (!fs.existsSync(target) || !fs.statSync(target).isDirectory()) {
    throw new GebeError(`${shown} is not a directory`, { hint: 'pass a model directory (with config.pbtxt) or a model repository' });
  }
  if (fs.existsSync(path.join(target, CONFIG))) {
    if (opts.model !== undefined && opts.model !== path.basename(target)) {
      throw new GebeError(`-m ${opts.model} does not match the model directory ${shown}`, { hint: 'pass the repository instead, or drop -m' });
    }
    const model = loadModel(target, opts.modelVersion, io);
    if (model.config.backend !== 'ge') {
      throw new GebeError(`${relativeTo(io.cwd, model.configFile)}: backend is "${model.config.backend ?? ''}", and only "ge" models are compiled with ATC`, {
        hint: 'set backend: "ge" in config.pbtxt to serve this model with the GE backend',
      });
    }
    return [model];
  }
  const names = fs.readdirSync(target, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(target, e.name, CONFIG)))
    .map((e) => e.name)
    .sort();
  if (names.length === 0) {
    throw new GebeError(`${shown} has no model directories (none contains ${CONFIG})`, {
      hint: 'pass a model directory or a repository; gebe init <name> creates one',
    });
  }
  if (opts.model !== undefined && !names.includes(opts.model)) {
    throw new GebeError(`model "${opts.model}" is not in ${shown}`, { hint: `models there: ${names.join(', ')}` });
  }
  const models = (opts.model !== undefined ? [opts.model] : names).map((name) => loadModel(path.join(target, name), opts.modelVersion, io));
  const ge = models.filter((m) => m.config.backend === 'ge');
  for (const m of models) {
    if (m.config.backend !== 'ge') io.stderr.write(`skipping ${m.name}: backend "${m.config.backend ?? ''}" is not "ge"\n`);
  }
  if (ge.length === 0) throw new GebeError(`${shown} has no model with backend "ge" to compile`);
  return ge;
}

function loadModel(modelDir: string, wantedVersion: number | undefined, io: IO): ConvertibleModel {
  const name = path.basename(modelDir);
  const configFile = path.join(modelDir, CONFIG);
  const shownConfig = relativeTo(io.cwd, configFile);
  const result = parseModelConfig(fs.readFileSync(configFile, 'utf8'), shownConfig);
  const first = result.diagnostics.find((d) => d.severity === 'error');
  if (first) {
    throw new GebeError(`${first.file}:${first.line}:${first.column}: ${first.message}`, {
      hint: 'fix config.pbtxt first (gebe validate lists every problem)',
    });
  }
  const versions = fs.readdirSync(modelDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^(0|[1-9]\d*)$/.test(e.name))
    .map((e) => Number(e.name))
    .sort((a, b) => a - b);
  const version = wantedVersion ?? versions.at(-1);
  if (version === undefined) {
    throw new GebeError(`model "${name}" has no version directory`, { hint: `put the ONNX model in ${relativeTo(io.cwd, path.join(modelDir, '1'))}/model.onnx` });
  }
  if (!versions.includes(version)) {
    throw new GebeError(`model "${name}" has no version ${version}`, { hint: `versions there: ${versions.join(', ') || 'none'}` });
  }
  const versionDir = path.join(modelDir, String(version));
  const onnx = listFiles(versionDir).filter((f) => f.toLowerCase().endsWith('.onnx'));
  const shownVersion = relativeTo(io.cwd, versionDir);
  if (onnx.length === 0) {
    throw new GebeError(`${shownVersion} has no .onnx file to compile`, { hint: `put the model at ${shownVersion}/model.onnx` });
  }
  if (onnx.length > 1) {
    // The GE backend loads the first .onnx it finds; compiling one of several would be a guess.
    throw new GebeError(`${shownVersion} has ${onnx.length} .onnx files (${onnx.join(', ')}); the GE backend would load only the first`, {
      hint: 'keep exactly one .onnx file per version directory',
    });
  }
  return { name, modelDir, configFile, config: result.config, version, versionDir, onnxFile: path.join(versionDir, onnx[0]!) };
}

/** Files under dir, relative, sorted, recursive. */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}
