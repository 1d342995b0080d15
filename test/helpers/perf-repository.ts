/**
 * A real model repository for perf's tests and benchmark: ONNX models built with the project's
 * ONNX builder, run by the native executor's cpu engine.
 *   trivial  y = x + 1, FP32 [4], max_batch_size 8 (no dynamic batching: one execution per request)
 *   dynamic  y = relu(x), FP32 [-1] (needs --shape)
 *   broken   trivial's files with max_batch_size -1 (never loads)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OnnxGraphBuilder } from './onnx-builder.js';

function addOne(): Uint8Array {
  return new OnnxGraphBuilder('trivial', 13)
    .input('INPUT0', 'FLOAT', ['batch', 4])
    .initializer('one', 'FLOAT', [1], [1])
    .node('Add', ['INPUT0', 'one'], ['OUTPUT0'])
    .output('OUTPUT0', 'FLOAT', ['batch', 4])
    .encode();
}

function relu(): Uint8Array {
  return new OnnxGraphBuilder('dynamic', 13)
    .input('INPUT0', 'FLOAT', ['batch', 'n'])
    .node('Relu', ['INPUT0'], ['OUTPUT0'])
    .output('OUTPUT0', 'FLOAT', ['batch', 'n'])
    .encode();
}

function config(name: string, maxBatchSize: number, dims: number[]): string {
  return `name: "${name}"
backend: "ge"
max_batch_size: ${maxBatchSize}
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${dims.join(', ')} ] } ]
`;
}

function writeModel(repo: string, name: string, configText: string, onnx: Uint8Array): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  writeFileSync(path.join(repo, name, 'config.pbtxt'), configText);
  writeFileSync(path.join(repo, name, '1', 'model.onnx'), onnx);
}

/** Writes the repository under `parent` (as `model_repository`) and returns its path. */
export function writePerfRepository(parent: string, options: { broken?: boolean } = {}): string {
  const repo = path.join(parent, 'model_repository');
  writeModel(repo, 'trivial', config('trivial', 8, [4]), addOne());
  writeModel(repo, 'dynamic', config('dynamic', 8, [-1]), relu());
  if (options.broken) writeModel(repo, 'broken', config('broken', -1, [4]), addOne());
  return repo;
}
