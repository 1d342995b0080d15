/**
 * What only the native HTTP front end does itself: framing, limits, timeouts, pipelining, the hand-off
 * to the JS handler, and the node front end it can be swapped for. Real sockets on port 0.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFrontend } from '../../../src/core/server/http/server.js';
import { NativeHttpFrontend } from '../../../src/core/server/http/native-frontend.js';
import { binaryBody, postBinary } from './helpers/http-client.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

const LIMIT = 8 << 20;

/** Writes `parts` to a fresh connection (waiting `gapMs` between them) and resolves with all it gets until the server closes it. */
function exchange(port: number, parts: Array<string | Buffer>, options: { gapMs?: number; until?: (text: string) => boolean } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = (): void => resolve(Buffer.concat(chunks));
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      if (options.until?.(Buffer.concat(chunks).toString('latin1'))) {
        socket.destroy();
        done();
      }
    });
    socket.on('close', done);
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? done() : reject(err)));
    socket.on('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
    });
  });
}

/** Splits a byte stream into HTTP/1.1 answers (Content-Length framing only, which is all the servers send). */
function answers(raw: Buffer, headRequests = 0): Array<{ status: number; headers: Record<string, string>; body: string }> {
  const out: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
  let offset = 0;
  while (offset < raw.byteLength) {
    const end = raw.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const lines = raw.toString('latin1', offset, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const status = Number(lines[0]!.split(' ')[1]);
    const length = status === 100 || out.length < headRequests ? 0 : Number(headers['content-length'] ?? 0);
    out.push({ status, headers, body: raw.toString('utf8', end + 4, end + 4 + length) });
    offset = end + 4 + length;
  }
  return out;
}

describe('native HTTP front end', () => {
  let t: TestServer;
  let port: number;

  beforeAll(async () => {
    t = await startTestServer({ server: { maxBodyBytes: LIMIT, headersTimeoutMs: 300 } });
    port = Number(new URL(t.http).port);
  });
  afterAll(() => t.stop());

  it('is the default front end', () => {
    expect(t.server.http).toBeInstanceOf(NativeHttpFrontend);
  });

  it('refuses a declared Content-Length over the limit with 413 before reading the body', async () => {
    const raw = await exchange(port, [`POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\n\r\n{"inp`]);
    const [answer] = answers(raw);
    expect(answer!.status).toBe(413);
    expect(answer!.headers.connection).toBe('close');
    expect(answer!.headers.date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(JSON.parse(answer!.body)).toEqual({ error: `request body exceeds the limit of ${LIMIT} bytes (raise it with --http-max-body)` });
  });

  it('refuses a chunked body with 413 as soon as it passes the limit', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x61);
    const head = 'POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n';
    const parts: Array<string | Buffer> = [head];
    for (let i = 0; i < 9; i++) parts.push(`${chunk.byteLength.toString(16)}\r\n`, chunk, '\r\n');
    const [answer] = answers(await exchange(port, parts));
    expect(answer!.status).toBe(413);
    expect(JSON.parse(answer!.body)).toEqual({ error: `request body exceeds the limit of ${LIMIT} bytes (raise it with --http-max-body)` });
  });

  it('answers garbage with 400 and closes', async () => {
    const [answer] = answers(await exchange(port, ['HELLO?? /\u0001 WHAT\r\n\r\n']));
    expect(answer!.status).toBe(400);
    expect(JSON.parse(answer!.body).error).toMatch(/^malformed HTTP request: Parse Error: /);
  });

  it('answers headers that do not finish in time with 408', async () => {
    const [answer] = answers(await exchange(port, ['GET /v2 HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'], { gapMs: 50 }));
    expect(answer!.status).toBe(408);
    expect(JSON.parse(answer!.body)).toEqual({ error: 'request headers were not received in time' });
  });

  it('refuses more than 16 KiB of headers with 431', async () => {
    const [answer] = answers(await exchange(port, [`GET /v2 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`]));
    expect(answer!.status).toBe(431);
  });

  it('says 100 Continue to Expect: 100-continue, then reads the body', async () => {
    const body = JSON.stringify({ inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [5, 6, 7, 8] },
    ] });
    const head = `POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`;
    let sentBody = false;
    const raw = await new Promise<Buffer>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => {
        chunks.push(d);
        if (!sentBody && Buffer.concat(chunks).toString().startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
          sentBody = true;
          socket.write(body);
        }
      });
      socket.on('close', () => resolve(Buffer.concat(chunks)));
    });
    const [cont, answer] = answers(raw);
    expect(cont!.status).toBe(100);
    expect(answer!.status).toBe(200);
    expect(JSON.parse(answer!.body).outputs[0].data).toEqual([1, 2, 3, 4]);
  });

  it('answers a request that sends its body with its Expect: 100-continue at once', async () => {
    const body = JSON.stringify({ inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [5, 6, 7, 8] },
    ] });
    const request = (close: boolean): string => `POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n${close ? 'Connection: close\r\n' : ''}Content-Length: ${body.length}\r\n\r\n${body}`;
    const got = answers(await exchange(port, [request(false) + request(true)]));
    expect(got.map((a) => a.status)).toEqual([100, 200, 100, 200]);
  });

  it('answers pipelined requests one after the other, in order', async () => {
    const raw = await exchange(port, ['GET /v2/models/simple HTTP/1.1\r\nHost: x\r\n\r\nGET /v2 HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    const got = answers(raw);
    expect(got.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(JSON.parse(got[0]!.body).name).toBe('simple');
    expect(JSON.parse(got[1]!.body).name).toBe('gebe');
    expect(got[2]!.body).toBe('');
  });

  it("writes the JS handler's answer to HEAD without a body and keeps the connection usable", async () => {
    const raw = await exchange(port, ['HEAD /v2 HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    const got = answers(raw, 1);
    expect(got.map((a) => a.status)).toEqual([200, 200]);
    expect(Number(got[0]!.headers['content-length'])).toBeGreaterThan(0);
    expect(got[1]!.body).toBe('');
  });

  it('survives clients that disconnect mid-request or while answered, and counts what it answered', async () => {
    const disconnectAfter = (request: string, ms: number): Promise<void> => new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(request);
        setTimeout(() => socket.resetAndDestroy(), ms);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    const body = JSON.stringify({ inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [5, 6, 7, 8] },
    ] });
    const before = t.server.http!.accepted;
    // Half a request, then gone.
    await disconnectAfter(`POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`, 20);
    // A whole request, gone while the model is still working on it.
    for (const m of t.models.values()) m.delayMs = 150;
    await disconnectAfter(`POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 30);
    for (const m of t.models.values()) m.delayMs = 0;
    const http_ = t.server.http!;
    expect(http_.accepted).toBe(before + 1);
    // The reset is noticed while the model works: the request counts as answered (dropped).
    while (http_.answered !== http_.accepted) await new Promise((r) => setTimeout(r, 5));
    expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
  });

  it('answers a request with a big body (the JS handler gets it whole)', async () => {
    // An encoding the JS server refuses before reading a byte of the body.
    const res = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', headers: { 'Content-Encoding': 'br' }, body: Buffer.alloc(6 << 20, 0x20) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/unsupported Content-Encoding 'br'/);
    expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
  });

  it('writes a multi-MiB answer of the JS handler intact', async () => {
    const bytes = new Uint8Array(6 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 12)) & 0xff;
    const { body, headerLength } = binaryBody({ outputs: [{ name: 'OUT', parameters: { binary_data: true } }] }, [{ name: 'IN', datatype: 'UINT8', shape: [bytes.length], bytes }]);
    const res = await postBinary(`${t.http}/v2/models/id_uint8/infer`, body, headerLength);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.binary.get('OUT')!, Buffer.from(bytes))).toBe(0);
  });
});

describe('native timeouts', () => {
  it('closes idle keep-alive connections and answers 408 to a body that does not finish in time', async () => {
    const t = await startTestServer({ server: { keepAliveTimeoutMs: 100, headersTimeoutMs: 200, requestTimeoutMs: 300 } });
    const port = Number(new URL(t.http).port);
    try {
      // The answer arrives, then the idle connection is closed by the server.
      const [live] = answers(await exchange(port, ['GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n']));
      expect(live!.status).toBe(200);
      expect(live!.headers.connection).toBe('keep-alive');
      const [slow] = answers(await exchange(port, ['POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"inputs"']));
      expect(slow!.status).toBe(408);
    } finally {
      await t.stop();
    }
  });
});

describe('native listen', () => {
  it('reports a port in use with its code, and resolves host names', async () => {
    const t = await startTestServer({ server: { host: 'localhost' } });
    try {
      expect((await fetch(`http://localhost:${new URL(t.http).port}/v2/health/live`)).status).toBe(200);
      const clash = new NativeHttpFrontend(t.server.service, { host: '127.0.0.1', port: Number(new URL(t.http).port), maxBodyBytes: 1024 }, silentLogger);
      await expect(clash.listen()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await t.stop();
    }
  });

  it('refuses a port in use with several loop threads too, whether the other server has one loop or several', async () => {
    for (const [first, second] of [[4, 4], [1, 4], [4, 1]]) {
      const t = await startTestServer({ server: { httpThreads: first } });
      const port = Number(new URL(t.http).port);
      try {
        const clash = new NativeHttpFrontend(t.server.service, { host: '127.0.0.1', port, maxBodyBytes: 1024, threads: second }, silentLogger);
        await expect(clash.listen(), `${first} then ${second} loops`).rejects.toMatchObject({ code: 'EADDRINUSE' });
        // The server that had the port still has all of it.
        expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
      } finally {
        await t.stop();
      }
      // Once it is gone, several loops take the port (SO_REUSEPORT) and serve it.
      const again = new NativeHttpFrontend(t.server.service, { host: '127.0.0.1', port, maxBodyBytes: 1024, threads: 4 }, silentLogger);
      expect(await again.listen()).toBe(port);
      expect((await fetch(`http://127.0.0.1:${port}/v2/health/live`)).status).toBe(200);
      expect(again.acceptedByLoop).toHaveLength(4);
      await again.close(1000);
    }
  });
});

describe('--http-frontend node', () => {
  it('serves with node:http on the public port', async () => {
    const t = await startTestServer({ server: { httpFrontend: 'node' } });
    try {
      expect(t.server.http).toBeInstanceOf(HttpFrontend);
      expect((await fetch(`${t.http}/v2/health/live`)).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('one wording for both HTTP front ends', () => {
  const SMALL = 1024;
  const big = Buffer.alloc(SMALL + 1, 0x61);
  const cases: Record<string, Array<string | Buffer>> = {
    'a declared Content-Length over the limit': [`POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: ${SMALL + 1}\r\n\r\n`, big],
    'a chunked body over the limit': ['POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', `${big.byteLength.toString(16)}\r\n`, big, '\r\n0\r\n\r\n'],
    'a Content-Length that is not a number': ['POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n'],
    'two different Content-Lengths': ['POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde'],
    'a negative Content-Length': ['POST /v2/models/simple/infer HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
  };

  it('answers an oversize body and a bad Content-Length with the same status and text on native and node:http', async () => {
    const native = await startTestServer({ server: { maxBodyBytes: SMALL } });
    const node = await startTestServer({ server: { maxBodyBytes: SMALL, httpFrontend: 'node' } });
    try {
      expect(native.server.http).toBeInstanceOf(NativeHttpFrontend);
      expect(node.server.http).toBeInstanceOf(HttpFrontend);
      for (const [what, parts] of Object.entries(cases)) {
        const [a] = answers(await exchange(Number(new URL(native.http).port), parts));
        const [b] = answers(await exchange(Number(new URL(node.http).port), parts));
        const seen = (x: typeof a) => ({ what, status: x?.status, error: x ? (JSON.parse(x.body) as { error: string }).error : undefined });
        expect(seen(a)).toEqual(seen(b));
        expect(a!.status, what).toBe(what.includes('over the limit') ? 413 : 400);
        if (a!.status === 413) expect(seen(a).error).toBe(`request body exceeds the limit of ${SMALL} bytes (raise it with --http-max-body)`);
        else expect(seen(a).error).toMatch(/^malformed HTTP request: Parse Error: /);
      }
    } finally {
      await native.stop();
      await node.stop();
    }
  });
});
