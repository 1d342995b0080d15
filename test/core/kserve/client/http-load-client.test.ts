/**
 * perf's raw HTTP load client turns transport failures into one-line errors that say what
 * happened: nothing listening, or a server that went away in the middle of a request (closed, or
 * reset as a server stopping with requests unanswered may do). Real sockets on port 0.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpInferClient } from '../../../../src/core/kserve/client/http-load-client.js';
import { HttpModelEndpoint } from '../../../../src/core/kserve/client/http-control.js';

const bodies = [{ body: Buffer.from('{"inputs":[]}'), headerLength: 13 }];
let server: net.Server | undefined;

afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A TCP server that treats every connection with `onRequest` once the first bytes arrive. */
function listen(onRequest: (socket: net.Socket) => void): Promise<string> {
  server = net.createServer((socket) => socket.once('data', () => onRequest(socket)));
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as net.AddressInfo).port}`)));
}

describe('HttpInferClient transport errors', () => {
  it('names a server that resets the connection during a request', async () => {
    const url = await listen((socket) => socket.resetAndDestroy());
    const client = new HttpInferClient(url, '/v2/models/m/infer', bodies);
    await expect(client.infer()).rejects.toThrow(`the server at ${url} closed the connection during a request (ECONNRESET); is it still running?`);
  });

  it('names a server that closes the connection during a request', async () => {
    const url = await listen((socket) => socket.end());
    const client = new HttpInferClient(url, '/v2/models/m/infer', bodies);
    await expect(client.infer()).rejects.toThrow(`the server at ${url} closed the connection during a request`);
  });

  it('says how to start a server when nothing listens', async () => {
    const url = await listen(() => {});
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const client = new HttpInferClient(url, '/v2/models/m/infer', bodies);
    await expect(client.infer()).rejects.toThrow(/cannot reach a KServe v2 server at .* \(ECONNREFUSED\); start one with `gebe serve <repo>`/);
  });
});

/**
 * A keep-alive server that answers the first request on each connection and resets the connection
 * when a second one arrives on it: a server that closed an idle connection as the client reused it.
 */
function listenClosingReused(body: string): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = net.createServer((socket) => {
    connections++;
    let requests = 0;
    socket.on('data', () => {
      if (++requests > 1) { socket.resetAndDestroy(); return; }
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`);
    });
  });
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server!.address() as net.AddressInfo).port}`,
    connections: () => connections,
  })));
}

describe('a keep-alive connection the server closed between requests', () => {
  it('is retried once on a fresh connection by the load client', async () => {
    const { url, connections } = await listenClosingReused('{}');
    const client = new HttpInferClient(url, '/v2/models/m/infer', bodies);
    await client.infer();
    await client.infer();
    await client.infer();
    expect(connections()).toBe(3);
    await client.close();
  });

  it('is retried once on a fresh socket by the control plane (statistics), not reported as an unreachable server', async () => {
    const { url, connections } = await listenClosingReused(JSON.stringify({ model_stats: [{ name: 'm', version: '1' }] }));
    const endpoint = new HttpModelEndpoint(url, 'm', '1');
    for (let i = 0; i < 3; i++) expect((await endpoint.statistics())?.name).toBe('m');
    expect(connections()).toBe(3);
    await endpoint.close();
  });
});
