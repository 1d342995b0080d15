/** Real servers over the real executor, for the end-to-end tests. */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { silentLogger, type Logger } from '../../../../src/core/server/logger.js';
import { ModelManager, type ControlMode } from '../../../../src/core/server/model-manager.js';
import { GebeServer, type ServerOptions } from '../../../../src/core/server/server.js';
import { ResponseCache } from '../../../../src/core/server/response-cache.js';
import type { LatencyMetricsConfig } from '../../../../src/core/server/latency-metrics.js';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export interface RealServer {
  repo: string;
  manager: ModelManager;
  server: GebeServer;
  http: string;
  grpc: string;
  metrics: string;
  stop(): Promise<void>;
}

/** A temporary repository holding a copy of the MNIST template (and any extra models). */
export function mnistRepository(extra: Record<string, { config: string; model: Uint8Array; files?: Record<string, Uint8Array> }> = {}): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-e2e-'));
  cpSync(path.join(repoRoot, 'templates/mnist'), path.join(repo, 'mnist'), { recursive: true });
  for (const [name, m] of Object.entries(extra)) {
    mkdirSync(path.join(repo, name, '1'), { recursive: true });
    writeFileSync(path.join(repo, name, 'config.pbtxt'), m.config);
    writeFileSync(path.join(repo, name, '1', 'model.onnx'), m.model);
    for (const [file, content] of Object.entries(m.files ?? {})) writeFileSync(path.join(repo, name, file), content);
  }
  return repo;
}

/**
 * `responseCacheBytes`: the server has a response cache of this size (`--cache-config local,size=`);
 * `modelConfigName`: Triton's --model-config-name.
 */
export async function startRealServer(repo: string, mode: ControlMode = 'none', loadModels: string[] = [], log: Logger = silentLogger,
                                      options: Partial<ServerOptions> & { responseCacheBytes?: number; modelConfigName?: string; latencyMetrics?: LatencyMetricsConfig } = {}): Promise<RealServer> {
  const manager = new ModelManager(new DiskModelSource(repo, {}, options.modelConfigName), loadModel, log, mode);
  if (options.responseCacheBytes !== undefined) manager.responseCache = new ResponseCache(options.responseCacheBytes);
  if (options.latencyMetrics) manager.latencyMetrics = options.latencyMetrics;
  await manager.start(loadModels);
  const failed = manager.statuses().filter((v) => v.state !== 'READY');
  if (failed.length > 0) throw new Error(`models failed to load: ${failed.map((f) => `${f.name}: ${f.reason}`).join('; ')}`);
  const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 8 << 20, ...options }, log);
  const ports = await server.listen();
  return {
    repo, manager, server,
    http: `http://127.0.0.1:${ports.http}`,
    grpc: `127.0.0.1:${ports.grpc}`,
    metrics: `http://127.0.0.1:${ports.metrics}/metrics`,
    stop: async () => {
      await server.stop(5000);
      rmSync(repo, { recursive: true, force: true });
    },
  };
}

/**
 * Adds `pipeline`, an ensemble of the one mnist step (IMAGE → LOGITS), to a repository made by
 * mnistRepository: JS runs it, so it exercises what JS does for ensembles. `extra` is appended to
 * its config.
 */
export function writeMnistPipeline(repo: string, extra = ''): void {
  mkdirSync(path.join(repo, 'pipeline', '1'), { recursive: true });
  writeFileSync(path.join(repo, 'pipeline', 'config.pbtxt'), `name: "pipeline"
platform: "ensemble"
max_batch_size: 16
input [{ name: "IMAGE" data_type: TYPE_FP32 dims: [1, 28, 28] }]
output [{ name: "LOGITS" data_type: TYPE_FP32 dims: [10] }]
ensemble_scheduling { step [{ model_name: "mnist" model_version: -1 input_map { key: "image" value: "IMAGE" } output_map { key: "logits" value: "LOGITS" } }] }
${extra}`);
}

/** One tensor of a binary-extension infer request (its bytes follow the JSON header; FP32 unless said). */
export interface BinaryInput {
  name: string;
  datatype?: string;
  shape: number[];
  bytes: Uint8Array;
}

/**
 * A client that goes away: sends one binary infer request for `model` on a raw socket and resets
 * the connection `afterMs` later without reading; fails if an answer comes before that.
 */
export function httpInferThenReset(address: { host: string; port: number }, model: string, afterMs: number, input: BinaryInput,
                                   parameters?: object): Promise<void> {
  const header = Buffer.from(JSON.stringify({ parameters, inputs: [{ name: input.name, datatype: input.datatype ?? 'FP32', shape: input.shape, parameters: { binary_data_size: input.bytes.byteLength } }] }));
  const body = Buffer.concat([header, input.bytes]);
  return new Promise((resolve, reject) => {
    const socket = net.connect(address, () => {
      socket.write(`POST /v2/models/${model}/infer HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: ${header.length}\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body);
      setTimeout(() => {
        socket.resetAndDestroy();
        resolve();
      }, afterMs);
    });
    socket.on('data', () => reject(new Error(`the request to ${model} was answered before the client went away`)));
    socket.on('error', () => undefined);
  });
}

/** A Python model `params` in `repo` whose output P is its request's parameters (request.parameters(), a JSON string); input IN, INT32 [-1]. */
export function writeParametersModel(repo: string): void {
  writeModel(repo, 'params', [
    'backend: "python"', 'max_batch_size: 0',
    'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]', 'output [ { name: "P" data_type: TYPE_STRING dims: [ 1 ] } ]',
  ], [
    'import numpy as np',
    'import triton_python_backend_utils as pb_utils',
    'class TritonPythonModel:',
    '    def execute(self, requests):',
    '        return [pb_utils.InferenceResponse([pb_utils.Tensor("P", np.array([r.parameters().encode()], dtype=np.object_))]) for r in requests]',
  ]);
}

/**
 * Model `name` in `repo`: its config.pbtxt (`name:` first, then `config`'s lines) and, given its
 * lines, version 1's model.py (an ensemble has an empty version directory).
 */
/**
 * A model.py whose execute() runs `body` (lines, unindented) for each request `r`, appending its
 * response to `out`; numpy (np), triton_python_backend_utils (pb_utils) and `imports` imported.
 */
export function perRequestModelPy(body: string[], imports: string[] = []): string[] {
  return [
    ...imports,
    'import numpy as np',
    'import triton_python_backend_utils as pb_utils',
    'class TritonPythonModel:',
    '    def execute(self, requests):',
    '        out = []',
    '        for r in requests:',
    ...body.map((line) => `            ${line}`),
    '        return out',
  ];
}

export function writeModel(repo: string, name: string, config: string[], modelPy?: string[]): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  writeFileSync(path.join(repo, name, 'config.pbtxt'), [`name: "${name}"`, ...config, ''].join('\n'));
  if (modelPy) writeFileSync(path.join(repo, name, '1', 'model.py'), [...modelPy, ''].join('\n'));
}
