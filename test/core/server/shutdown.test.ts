import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './helpers/test-server.js';

const body = Buffer.from(JSON.stringify({ inputs: [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
] }));

/** One infer request; resolves with the status, or with the connection error's code. */
function infer(base: string, agent: http.Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(`${base}/v2/models/simple/infer`, { method: 'POST', agent, headers: { 'Content-Length': String(body.byteLength) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(body);
  });
}

describe('graceful shutdown', () => {
  it('answers every accepted request while stopping under load, then unloads', async () => {
    const t = await startTestServer();
    for (const m of t.models.values()) m.delayMs = 15;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    let stopping = false;
    const results: Array<number | string> = [];
    // 16 clients loop until the server goes away; the stop comes while requests are in flight.
    const clients = Array.from({ length: 16 }, async () => {
      for (;;) {
        const r = await infer(t.http, agent);
        results.push(r);
        if (typeof r === 'string' || stopping && r !== 200) return;
      }
    });
    // Stop only once requests have completed and others are in flight at the server.
    while (results.length < 32 || t.server.http!.inFlightCount === 0) await new Promise((r) => setTimeout(r, 2));
    stopping = true;
    await t.server.stop(5000);
    await Promise.all(clients);
    agent.destroy();
    const http_ = t.server.http!;
    const ok = results.filter((r) => r === 200).length;
    // Every request the server accepted got a 200; the rest were refused at the connection.
    expect(http_.accepted).toBe(http_.answered);
    expect(ok).toBe(http_.accepted);
    expect(results.filter((r) => typeof r === 'number' && r !== 200)).toEqual([]);
    expect(ok).toBeGreaterThanOrEqual(32);
    expect([...t.models.values()].every((m) => m.unloaded)).toBe(true);
  });
});
