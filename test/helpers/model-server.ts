/** A real gebe server on port 0 serving one model directory through the executor. */
import fs from 'node:fs';
import path from 'node:path';
import { parseModelConfig } from '../../src/core/config/index.js';
import { loadModel } from '../../src/core/executor/index.js';
import { ModelManager } from '../../src/core/server/model-manager.js';
import { GebeServer } from '../../src/core/server/server.js';
import { silentLogger } from '../../src/core/server/logger.js';
import type { ModelSource } from '../../src/core/server/model-source.js';

export async function serveModelDir(modelDir: string): Promise<{ server: GebeServer; http: string; grpc: string }> {
  const name = path.basename(modelDir);
  const configFile = path.join(modelDir, 'config.pbtxt');
  const config = parseModelConfig(fs.readFileSync(configFile, 'utf8'), configFile).config;
  const source: ModelSource = {
    list: async () => [name],
    read: async (n) => (n === name ? { name, dir: modelDir, config, versions: ['1'], errors: [], fingerprint: '1' } : undefined),
  };
  const manager = new ModelManager(source, loadModel, silentLogger, 'none');
  await manager.start();
  const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 20 }, silentLogger);
  const ports = await server.listen();
  return { server, http: `127.0.0.1:${ports.http}`, grpc: `127.0.0.1:${ports.grpc}` };
}
