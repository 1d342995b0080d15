/**
 * A real `gebe serve` (GebeServer over a ModelManager reading a repository on disk, models run by
 * the native executor) on port 0, with HTTP, gRPC and the statistics extension, for perf's tests.
 */
import { loadModel } from '../../src/core/executor/index.js';
import { DiskModelSource } from '../../src/core/server/disk-source.js';
import { silentLogger } from '../../src/core/server/logger.js';
import { ModelManager } from '../../src/core/server/model-manager.js';
import { GebeServer, type ServerOptions } from '../../src/core/server/server.js';
import { ResponseCache } from '../../src/core/server/response-cache.js';

export interface PerfServer {
  http: string;
  grpc: string;
  manager: ModelManager;
  stop(): Promise<void>;
}

/** `options`: more of the server's options (a trace file, say); `responseCacheBytes`: a response cache of that size. */
export async function startPerfServer(repository: string, options: Partial<ServerOptions> & { responseCacheBytes?: number } = {}): Promise<PerfServer> {
  const manager = new ModelManager(new DiskModelSource(repository), loadModel, silentLogger, 'none');
  if (options.responseCacheBytes !== undefined) manager.responseCache = new ResponseCache(options.responseCacheBytes);
  await manager.start();
  const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableMetrics: false, maxBodyBytes: 1 << 24, ...options }, silentLogger);
  const ports = await server.listen();
  return { http: `127.0.0.1:${ports.http}`, grpc: `127.0.0.1:${ports.grpc}`, manager, stop: () => server.stop(2000) };
}
