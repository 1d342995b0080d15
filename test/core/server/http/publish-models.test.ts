/**
 * Publication of the READY native models to the native infer route: on start, on unload (before
 * the model goes), and through the real addon binding, which takes only real NativeModel handles.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/core/executor/index.js';
import type { NativeModel } from '../../../../src/core/executor/executor-addon.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { createNativeHttpServer } from '../../../../src/core/server/http/native-http-addon.js';
import { publishReadyModels } from '../../../../src/core/server/http/publish-models.js';
import { silentLogger, type LogFields, type Logger } from '../../../../src/core/server/logger.js';
import { nativeHttpWording } from '../../../../src/core/server/limits.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { mnistRepository } from '../e2e/helpers.js';
import { call, grpcClient, streamInfer } from '../helpers/grpc-client.js';

describe('publishReadyModels', () => {
  it('publishes READY native versions with the default version, withdraws them on unload, and the binding accepts them', async () => {
    const repo = mnistRepository();
    const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'explicit');
    // The real binding (not listening): publish must unwrap each handle to its model core.
    const native = createNativeHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024, ...nativeHttpWording(1024, 1 << 20, 16) }, () => undefined);
    const seen: Array<{ model: string; versions: string[]; defaultVersion: string }> = [];
    const stop = publishReadyModels(manager, {
      publish(model, versions, defaultVersion) {
        native.publish(model, versions, defaultVersion);
        seen.push({ model, versions: versions.map((v) => v.version), defaultVersion });
      },
    });
    try {
      await manager.load('mnist');
      expect(seen.at(-1)).toEqual({ model: 'mnist', versions: ['1'], defaultVersion: '1' });
      await manager.unload('mnist');
      expect(seen.at(-1)).toEqual({ model: 'mnist', versions: [], defaultVersion: '' });
      expect(() => native.publish('x', [{ version: '1', model: {} as NativeModel }], '1')).toThrow(/must be a NativeModel/);
    } finally {
      stop();
      await manager.stop();
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

/** A binary MNIST infer request (one row) as the native route takes it. */
function binaryInfer(base: string): Promise<Response> {
  const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], parameters: { binary_data_size: 784 * 4 } }], outputs: [{ name: 'logits', parameters: { binary_data: true } }] }));
  return fetch(`${base}/v2/models/mnist/infer`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(header.byteLength) }, body: Buffer.concat([header, Buffer.alloc(784 * 4)]) });
}

describe('GebeServer with the native front end', () => {
  it('publishes the models loaded before it listens, with or without verbose logging, and logs natively answered requests', async () => {
    const repo = mnistRepository();
    const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
    await manager.start();
    const lines: Array<{ message: string; fields?: LogFields }> = [];
    const collecting: Logger = { ...silentLogger, verboseEnabled: true, verbose: (message, fields) => void lines.push({ message, fields }) };
    const options = { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableGrpc: false, enableMetrics: false, maxBodyBytes: 1 << 20 };
    const quiet = new GebeServer(manager, options, silentLogger);
    const verbose = new GebeServer(manager, options, collecting);
    try {
      for (const server of [quiet, verbose]) {
        const base = `http://127.0.0.1:${(await server.listen()).http}`;
        const front = server.http as NativeHttpFrontend;
        const before = front.forwarded;
        expect((await binaryInfer(base)).status).toBe(200);
        expect(front.forwarded).toBe(before); // answered natively, not forwarded to JS
      }
      await verbose.http!.close(0); // drains the native request log
      expect(lines).toContainEqual({ message: 'http request', fields: { method: 'POST', url: '/v2/models/mnist/infer', route: 'native' } });
    } finally {
      await verbose.http!.close(0);
      await quiet.stop(1000);
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe('GebeServer with the native gRPC front end', () => {
  it('logs the calls its infer route answers with --log-verbose, as JS logs its own, marked native', async () => {
    const repo = mnistRepository();
    const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
    await manager.start();
    const lines: Array<{ message: string; fields?: LogFields }> = [];
    const collecting: Logger = { ...silentLogger, verboseEnabled: true, verbose: (message, fields) => void lines.push({ message, fields }) };
    const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableHttp: false, enableMetrics: false, maxBodyBytes: 1 << 20 }, collecting);
    const client = grpcClient(`127.0.0.1:${(await server.listen()).grpc}`);
    try {
      const request = { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.alloc(784 * 4)] };
      expect((await call(client, 'ModelInfer', request)).raw_output_contents[0].byteLength).toBe(40);
      expect((await streamInfer(client, [request, request])).length).toBe(2);
      expect(await call(client, 'ServerLive', {})).toEqual({ live: true });
    } finally {
      client.close();
      await server.stop(1000); // drains the native request log
      await manager.stop();
      rmSync(repo, { recursive: true, force: true });
    }
    const calls = lines.filter((l) => l.message === 'grpc call').map((l) => l.fields);
    // The infer calls were answered natively (JS logs its own without `route`), ServerLive by JS.
    expect(calls).toEqual([
      { method: '/inference.GRPCInferenceService/ServerLive' },
      { method: '/inference.GRPCInferenceService/ModelInfer', route: 'native' },
      { method: '/inference.GRPCInferenceService/ModelStreamInfer', route: 'native' },
      { method: '/inference.GRPCInferenceService/ModelStreamInfer', route: 'native' },
    ]);
  });
});
