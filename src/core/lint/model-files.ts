/**
 * Which model file Triton would load for a config and a version directory, per backend:
 * the GE backend takes the first .onnx found by a recursive search (else the first .pb);
 * ONNX Runtime takes default_model_filename or model.onnx.
 */
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import type { VersionDir } from '../repository/types.js';
import { backendOf } from './helpers.js';

export function filesWithExtension(files: string[], ext: string): string[] {
  return files.filter((f) => f.toLowerCase().endsWith(ext));
}

/** The file (absolute path) the backend would load from this version, or undefined. */
export function modelFileFor(config: ModelConfig, version: VersionDir): string | undefined {
  const backend = backendOf(config);
  if (backend === 'ge') {
    const chosen = filesWithExtension(version.files, '.onnx')[0] ?? filesWithExtension(version.files, '.pb')[0];
    return chosen ? path.join(version.path, chosen) : undefined;
  }
  if (backend === 'onnxruntime') {
    const name = config.default_model_filename || 'model.onnx';
    return version.files.includes(name) ? path.join(version.path, name) : undefined;
  }
  return undefined;
}
