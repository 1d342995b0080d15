/** Starts a real gebe server on port 0 over JsModels, for the protocol tests. */
import type { ModelConfig } from '../../../../src/core/config/model-config.js';
import { ModelManager, type ControlMode } from '../../../../src/core/server/model-manager.js';
import { GebeServer, type ServerOptions } from '../../../../src/core/server/server.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { DATATYPES } from '../../../../src/core/kserve/datatypes.js';
import { identityFromConfig, type JsModel } from './js-model.js';
import { MemorySource } from './memory-source.js';

export function typeName(dt: string): string {
  return dt === 'BYTES' ? 'TYPE_STRING' : `TYPE_${dt}`;
}

/** One identity model per datatype (`id_fp32`, ...), a batching FP32 model, and a queue-limited one. */
export function protocolModels(): MemorySource {
  const source = new MemorySource();
  for (const dt of DATATYPES) {
    source.models.set(`id_${dt.toLowerCase()}`, {
      versions: ['1'],
      config: {
        name: `id_${dt.toLowerCase()}`, backend: 'ge', max_batch_size: 0,
        input: [{ name: 'IN', data_type: typeName(dt) as never, dims: [-1] }],
        output: [{ name: 'OUT', data_type: typeName(dt) as never, dims: [-1] }],
      },
    });
  }
  const batching: ModelConfig = {
    name: 'simple', backend: 'ge', max_batch_size: 8,
    input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] }, { name: 'INPUT1', data_type: 'TYPE_FP32', dims: [4] }],
    output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [4] }, { name: 'OUTPUT1', data_type: 'TYPE_FP32', dims: [4] }],
  };
  source.models.set('simple', { versions: ['1', '2'], config: batching });
  source.models.set('queued', { versions: ['1'], config: { ...batching, name: 'queued' } });
  source.models.set('broken', { versions: ['1'], config: { ...batching, name: 'broken' }, errors: ['config.pbtxt:3:1 MAX_BATCH_SIZE_NEGATIVE max_batch_size must be >= 0'] });
  return source;
}

export interface TestServer {
  server: GebeServer;
  manager: ModelManager;
  source: MemorySource;
  models: Map<string, JsModel>;
  http: string;
  grpc: string;
  metrics: string;
  stop(): Promise<void>;
}

export async function startTestServer(options: { mode?: ControlMode; load?: string[]; server?: Partial<ServerOptions>; source?: MemorySource } = {}): Promise<TestServer> {
  const source = options.source ?? protocolModels();
  const models = new Map<string, JsModel>();
  const manager = new ModelManager(source, async (dir, version, config) => {
    const name = config.name!;
    const model = identityFromConfig(name, version, config, name === 'queued' ? 1 : 0);
    models.set(`${name}/${version}`, model);
    return model;
  }, silentLogger, options.mode ?? 'none');
  await manager.start(options.load);
  const server = new GebeServer(manager, {
    host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 20, ...options.server,
  }, silentLogger);
  const ports = await server.listen();
  return {
    server, manager, source, models,
    http: `http://127.0.0.1:${ports.http}`,
    grpc: `127.0.0.1:${ports.grpc}`,
    metrics: `http://127.0.0.1:${ports.metrics}/metrics`,
    stop: () => server.stop(2000),
  };
}
