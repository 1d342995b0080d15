/**
 * Hostile clients on real sockets against both HTTP front ends (the native one also with four loop threads): declared sizes that never arrive,
 * the in-flight body budget, oversize chunk sizes, the connection limit, and the odd requests
 * (HTTP/1.0 without Host, CONNECT, an empty infer body).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { RawClient, post } from '../helpers/raw-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// The native front end also with four loop threads (--http-thread-count 4): the limits hold server-wide.
const FRONTENDS = [
  { name: 'native', frontend: 'native', threads: 1 },
  { name: 'native (4 loop threads)', frontend: 'native', threads: 4 },
  { name: 'node', frontend: 'node', threads: 1 },
] as const;
type Frontend = (typeof FRONTENDS)[number]['frontend'];
let running: TestServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(frontend: Frontend, server: Record<string, unknown> = {}): Promise<{ t: TestServer; port: number }> {
  running = await startTestServer({ server: { httpFrontend: frontend, ...server } });
  return { t: running, port: Number(new URL(running.http).port) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The native loop thread serving `client`'s connection: the one whose accepted count a request on it raises (nothing else is sent meanwhile). */
async function loopOf(front: NativeHttpFrontend, client: RawClient): Promise<number> {
  const before = front.acceptedByLoop;
  await client.send('GET /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\n');
  await client.waitFor(client.answers.length + 1);
  expect(client.answers.at(-1)?.status).toBe(200);
  const after = front.acceptedByLoop;
  return after.findIndex((n, i) => n !== before[i]);
}

describe.each(FRONTENDS)('$name front end limits', ({ frontend, threads }) => {
  it('holds memory for bytes received, not for 100 declared 64 MB bodies', async () => {
    const { t, port } = await start(frontend, { maxBodyBytes: 64 << 20, httpThreads: threads });
    global.gc?.();
    const before = process.memoryUsage().rss;
    const clients = Array.from({ length: 100 }, () => new RawClient(port));
    await Promise.all(clients.map(async (c) => {
      await c.connected;
      await c.send('POST /v2/models/simple/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 67108863\r\n\r\n{"inputs": [{"name": "INPUT0", "dat');
    }));
    if (t.server.http instanceof NativeHttpFrontend) {
      const native = t.server.http;
      for (let i = 0; i < 500 && native.bodyBytes < 100 * 35; i++) await sleep(5);
      expect(native.bodyBytes).toBeGreaterThanOrEqual(100 * 35);
      expect(native.bodyBytes).toBeLessThanOrEqual(100 * (64 * 1024 + 256));
    } else {
      await sleep(200);
    }
    const growth = process.memoryUsage().rss - before;
    // Before: 100 x 64 MB reserved (6.4 GB). Now at most a first buffer each, plus noise.
    expect(growth).toBeLessThan(200 << 20);
    expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
    for (const c of clients) c.destroy();
  });

  it('answers 503 once all bodies together pass --http-max-inflight-body', async () => {
    const { port } = await start(frontend, { maxBodyBytes: 1 << 20, maxInflightBodyBytes: 300_000, httpThreads: threads });
    const first = new RawClient(port);
    await first.connected;
    await first.send(`POST /v2/models/simple/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 400000\r\n\r\n${'x'.repeat(200_000)}`);
    await sleep(100);
    const second = new RawClient(port);
    await second.connected;
    await second.send(post('/v2/models/simple/infer', 'y'.repeat(200_000)));
    await second.waitFor(1);
    expect(second.answers[0]?.status).toBe(503);
    expect(JSON.parse(second.answers[0]!.body).error).toBe('the server is receiving request bodies of 300000 bytes in total, its limit (--http-max-inflight-body); retry later');
    first.destroy();
    second.destroy();
  });

  it('refuses a chunk size past the body limit (native: as soon as it is announced)', async () => {
    const { port } = await start(frontend, { httpThreads: threads });
    const c = new RawClient(port);
    await c.connected;
    await c.send('POST /v2/models/simple/infer HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nab');
    // node:http does not show chunk sizes to JS: there the bytes count as they arrive.
    if (frontend === 'node') await c.send('x'.repeat((1 << 20) + 1));
    await c.waitFor(1);
    expect(c.answers[0]?.status).toBe(413);
    expect(JSON.parse(c.answers[0]!.body).error).toMatch(/exceeds the limit of 1048576 bytes/);
    c.destroy();
  });

  it('answers 503 and closes past --max-connections, whichever loop the connection lands on', async () => {
    const { port } = await start(frontend, { maxConnections: 3, httpThreads: threads });
    const kept = Array.from({ length: 3 }, () => new RawClient(port));
    // Each is open on the server (answered) before any more come.
    await Promise.all(kept.map(async (c) => {
      await c.send('GET /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\n');
      await c.waitFor(1);
      expect(c.answers[0]?.status).toBe(200);
    }));
    // With four loops, eight extra connections land on most of them (the kernel hashes each one's port).
    for (let i = 0; i < 8; i++) {
      const extra = new RawClient(port);
      await extra.waitClosed();
      expect(extra.answers.map((a) => a.status)).toEqual([503]);
      expect(JSON.parse(extra.answers[0]!.body).error).toBe('the server has 3 open connections, its limit (--max-connections); retry later');
    }
    await kept[0]!.send('GET /v2/health/live HTTP/1.1\r\nHost: t\r\n\r\n');
    await kept[0]!.waitFor(2);
    expect(kept[0]!.answers[1]?.status).toBe(200);
    for (const c of kept) c.destroy();
  });

  it('answers HTTP/1.0 without Host, refuses HTTP/1.1 without Host and CONNECT with JSON errors, and names a missing inputs array', async () => {
    const { port } = await start(frontend, { httpThreads: threads });
    const cases: Array<[string, number, RegExp | undefined]> = [
      ['GET /v2/health/live HTTP/1.0\r\n\r\n', 200, undefined],
      ['GET /v2/health/live HTTP/1.1\r\n\r\n', 400, /must have a Host header/],
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, /CONNECT is not allowed/],
      [post('/v2/models/simple/infer', '{}'), 400, /non-empty 'inputs' array, got none$/],
    ];
    for (const [request, status, error] of cases) {
      const c = new RawClient(port);
      await c.connected;
      await c.send(request);
      await c.waitFor(1);
      expect(c.answers[0]?.status, request).toBe(status);
      if (error) expect(JSON.parse(c.answers[0]!.body).error).toMatch(error);
      c.destroy();
    }
  });
});

describe('native front end with 4 loop threads', () => {
  it('counts bodies held on every loop against --http-max-inflight-body', async () => {
    const { t, port } = await start('native', { maxBodyBytes: 1 << 20, maxInflightBodyBytes: 300_000, httpThreads: 4 });
    const front = t.server.http as NativeHttpFrontend;
    const first = new RawClient(port);
    const firstLoop = await loopOf(front, first);
    let second: RawClient | undefined;
    for (let i = 0; i < 32 && !second; i++) {
      const c = new RawClient(port);
      if ((await loopOf(front, c)) !== firstLoop) second = c;
      else c.destroy();
    }
    expect(second, 'a connection on another loop').toBeDefined();
    await first.send(`POST /v2/models/simple/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 400000\r\n\r\n${'x'.repeat(200_000)}`);
    while (front.bodyBytes < 200_000) await sleep(2);
    await second!.send(post('/v2/models/simple/infer', 'y'.repeat(200_000)));
    await second!.waitFor(2);
    expect(second!.answers[1]?.status).toBe(503);
    expect(JSON.parse(second!.answers[1]!.body).error).toBe('the server is receiving request bodies of 300000 bytes in total, its limit (--http-max-inflight-body); retry later');
    first.destroy();
    second!.destroy();
  });
});

describe('native front end', () => {
  it('answers the control plane in process: no second listener, no socket of its own', async () => {
    const { t } = await start('native');
    const front = t.server.http as NativeHttpFrontend;
    const before = front.forwarded;
    expect((await fetch(`${t.http}/v2`)).status).toBe(200);
    expect(front.forwarded).toBe(before + 1);
  });
});
