/**
 * perf's --shared-memory system against a real server: the inputs are written once into a POSIX
 * shared-memory object registered as one region; a request names where its tensors lie and
 * carries none of their bytes; the model's output lands in the output's window; release()
 * unregisters the region and removes the object.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBinaryInferRequest } from '../../../src/core/kserve/client/http-binary.js';
import { HttpModelEndpoint } from '../../../src/core/kserve/client/http-control.js';
import { PerfSharedMemory } from '../../../src/core/perf/shared-memory.js';
import { startPerfServer, type PerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';

let server: PerfServer;
beforeAll(async () => {
  server = await startPerfServer(writePerfRepository(mkdtempSync(path.join(tmpdir(), 'gebe-perf-shm-'))));
});
afterAll(async () => server?.stop());

const f32 = (bytes: Uint8Array) => [...new Float32Array(Uint8Array.from(bytes).buffer)];

describe('perf --shared-memory system', () => {
  it('registers the requests\' tensors, sends requests without their bytes, and cleans up', async () => {
    const endpoint = new HttpModelEndpoint(server.http, 'trivial');
    const requests = [1, 10].map((base) => [{ name: 'INPUT0', datatype: 'FP32' as const, shape: [1, 4], data: new Uint8Array(new Float32Array([base, base + 1, base + 2, base + 3]).buffer) }]);
    const shm = await PerfSharedMemory.create(requests, ['OUTPUT0'], 64, endpoint);
    try {
      const status = await fetch(`http://${server.http}/v2/systemsharedmemory/status`).then((r) => r.json()) as Array<{ name: string; key: string; byte_size: number }>;
      expect(status).toHaveLength(1);
      const file = `/dev/shm${status[0]!.key}`;
      const layout = shm.layouts[1]!;
      expect(f32(readFileSync(file).subarray(layout.inputs[0]!.offset, layout.inputs[0]!.offset + 16))).toEqual([10, 11, 12, 13]);

      const { body, headerLength } = encodeBinaryInferRequest(requests[1]!, ['OUTPUT0'], layout);
      expect(body.byteLength).toBe(headerLength); // no tensor bytes after the header
      const res = await fetch(`http://${server.http}/v2/models/trivial/infer`, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(headerLength) }, body });
      expect(res.status).toBe(200);
      const out = layout.outputs.get('OUTPUT0')!;
      expect(f32(readFileSync(file).subarray(out.offset, out.offset + 16))).toEqual([11, 12, 13, 14]);

      await shm.release();
      expect([await fetch(`http://${server.http}/v2/systemsharedmemory/status`).then((r) => r.json()), existsSync(file)]).toEqual([[], false]);
    } finally {
      await shm.release();
      await endpoint.close();
    }
  });
});
