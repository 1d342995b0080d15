/**
 * gRPC clients are bounded like HTTP ones: --max-connections counts gRPC connections (accepted on
 * gebe's own listener, handed to grpc-js through its connection injector) and closes one more at
 * once; each connection may run at most GRPC_MAX_CONCURRENT_STREAMS calls at once.
 */
import net from 'node:net';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { GRPC_MAX_CONCURRENT_STREAMS } from '../../../../src/core/server/grpc/server.js';
import { call, callError, grpcClient } from '../helpers/grpc-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let running: TestServer | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await running?.stop();
  running = undefined;
});

const open = (address: string) => new Promise<net.Socket>((resolve, reject) => {
  const [host, port] = address.split(':');
  const s = net.connect(Number(port), host!, () => resolve(s)).on('error', reject);
  sockets.push(s);
});
const frontend = (t: TestServer) => (t.server as unknown as { grpc: { connectionCount: number; refusedConnections: number } }).grpc;
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('gRPC connections', () => {
  it('are counted against --max-connections: one more is closed at once, a freed slot serves again', async () => {
    running = await startTestServer({ server: { maxConnections: 2 } });
    const t = running;
    const held = [await open(t.grpc), await open(t.grpc)];
    await until(() => frontend(t).connectionCount === 2);
    const client = grpcClient(t.grpc);
    const refused = await callError(client, 'ServerLive', {});
    expect(refused.code).toBe(grpc.status.UNAVAILABLE);
    expect(frontend(t).refusedConnections).toBeGreaterThan(0);
    held[0]!.destroy();
    await until(() => frontend(t).connectionCount === 1);
    client.close();
    const again = grpcClient(t.grpc);
    expect(await call(again, 'ServerLive', {})).toEqual({ live: true });
    again.close();
  });

  it('announce a bound on concurrent streams in their HTTP/2 settings', async () => {
    running = await startTestServer();
    const session = http2.connect(`http://${running.grpc}`);
    const settings = await new Promise<http2.Settings>((resolve, reject) => {
      session.once('remoteSettings', resolve).once('error', reject);
    });
    session.close();
    expect(settings.maxConcurrentStreams).toBe(GRPC_MAX_CONCURRENT_STREAMS);
  });

  it('report a port in use as EADDRINUSE, which serve words for the user', async () => {
    running = await startTestServer();
    const { GrpcFrontend } = await import('../../../../src/core/server/grpc/server.js');
    const { silentLogger } = await import('../../../../src/core/server/logger.js');
    const clash = new GrpcFrontend(running.server.service, { host: '127.0.0.1', port: Number(running.grpc.split(':')[1]), maxMessageBytes: 1 << 20 }, silentLogger);
    await expect(clash.listen()).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
