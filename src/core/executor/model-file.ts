/**
 * Which file in `<modelDir>/<version>/` a model runs from, and which engine runs it.
 * Triton's GE backend takes the first .onnx; gebe also runs .om offline models (ascend engine).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import { outsideMessage, resolveInside } from '../repository/inside.js';
import type { EngineName } from './types.js';

const engineByExtension: Record<string, EngineName> = { '.onnx': 'cpu', '.om': 'ascend' };

/** The engine that runs a model file, by extension; undefined when gebe has none for it. */
export function engineForModelFile(file: string): EngineName | undefined {
  return engineByExtension[path.extname(file).toLowerCase()];
}

/** The absolute path of the model file to load; throws GebeError naming what was looked for. */
export function findModelFile(modelDir: string, version: string, config: ModelConfig): string {
  const versionDir = path.join(modelDir, version);
  if (!existsSync(versionDir) || !statSync(versionDir).isDirectory()) {
    throw new GebeError(`model version directory ${versionDir} does not exist`, {
      hint: `create ${versionDir}/ with the model file in it (versions are integer directory names)`,
    });
  }
  if (config.default_model_filename) {
    const named = resolveInside(modelDir, versionDir, config.default_model_filename);
    if (!named.ok && named.reason === 'outside') {
      throw new GebeError(outsideMessage('default_model_filename', config.default_model_filename), {
        hint: `name a file in ${versionDir}/, relative to it`,
      });
    }
    const file = path.join(versionDir, config.default_model_filename);
    if (!named.ok) {
      throw new GebeError(`default_model_filename "${config.default_model_filename}" names ${file}, which does not exist`, {
        hint: `put the model file there or fix default_model_filename in ${path.join(modelDir, 'config.pbtxt')}`,
      });
    }
    if (!engineForModelFile(file)) {
      throw new GebeError(`no gebe engine runs ${file}: the cpu engine runs .onnx and the ascend engine runs .om`, {
        hint: 'convert the model to ONNX, or to .om with `gebe convert`',
      });
    }
    return file;
  }
  const files = readdirSync(versionDir).sort();
  const pick = files.find((f) => f.toLowerCase().endsWith('.onnx')) ?? files.find((f) => f.toLowerCase().endsWith('.om'));
  if (!pick) {
    throw new GebeError(`no model file in ${versionDir}: looked for *.onnx, then *.om`, {
      hint: 'put model.onnx (or model.om) there, or set default_model_filename in config.pbtxt',
    });
  }
  if (!resolveInside(modelDir, versionDir, pick).ok) {
    throw new GebeError(`the model file ${path.join(versionDir, pick)} is a symlink out of the model directory`, {
      hint: 'copy the model file into the version directory instead of linking to it',
    });
  }
  return path.join(versionDir, pick);
}
