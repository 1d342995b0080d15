/**
 * A real `gebe serve` (GebeServer over a ModelManager) on port 0 for perf's tests: HTTP and gRPC
 * listeners, the statistics extension, models loaded through a LoadModelFn.
 */
import type { ModelConfig } from '../../src/core/config/model-config.js';
import { ModelManager, type LoadModelFn } from '../../src/core/server/model-manager.js';
import { silentLogger } from '../../src/core/server/logger.js';
import { GebeServer } from '../../src/core/server/server.js';
import { identityFromConfig } from '../core/server/helpers/js-model.js';
import { MemorySource } from '../core/server/helpers/memory-source.js';

export interface PerfServer {
  http: string;
  grpc: string;
  manager: ModelManager;
  stop(): Promise<void>;
}

const fp32 = (name: string, dims: number[]) => ({ name, data_type: 'TYPE_FP32' as const, dims });

/** ident (FP32 [4], max_batch_size 8), dyn (dynamic dims), broken (fails validation, never ready). */
export function perfModels(): MemorySource {
  const source = new MemorySource();
  const ident: ModelConfig = { name: 'ident', backend: 'ge', max_batch_size: 8, input: [fp32('INPUT0', [4])], output: [fp32('OUTPUT0', [4])] };
  source.models.set('ident', { versions: ['1'], config: ident });
  source.models.set('dyn', { versions: ['1'], config: {
    name: 'dyn', backend: 'ge', max_batch_size: 8,
    input: [fp32('INPUT0', [-1]), { name: 'MASK', data_type: 'TYPE_INT32', dims: [-1] }],
    output: [fp32('OUTPUT0', [-1]), { name: 'OUTPUT1', data_type: 'TYPE_INT32', dims: [-1] }],
  } });
  source.models.set('broken', { versions: ['1'], config: { ...ident, name: 'broken' }, errors: ['config.pbtxt:3:1 MAX_BATCH_SIZE_NEGATIVE max_batch_size must be >= 0'] });
  return source;
}

/** JS identity models: what the server's own protocol tests run on. */
export const identityLoader: LoadModelFn = async (_dir, version, config) => identityFromConfig(config.name!, version, config);

export async function startPerfServer(source = perfModels(), load: LoadModelFn = identityLoader): Promise<PerfServer> {
  const manager = new ModelManager(source, load, silentLogger, 'none');
  await manager.start();
  const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableMetrics: false, maxBodyBytes: 1 << 24 }, silentLogger);
  const ports = await server.listen();
  return { http: `127.0.0.1:${ports.http}`, grpc: `127.0.0.1:${ports.grpc}`, manager, stop: () => server.stop(2000) };
}
