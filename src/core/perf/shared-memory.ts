/**
 * perf_analyzer's `--shared-memory system`: the requests' input tensors are written once into a
 * POSIX shared-memory object on this host (/dev/shm), the object is registered with the server as
 * one region, and each request names where its tensors lie instead of carrying them. Each output
 * gets a window of `--output-shared-memory-size` bytes, which concurrent requests share (their
 * results are not read, as in perf_analyzer). The region is unregistered and the object removed
 * when the run ends.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { RequestInputs, SharedMemoryLayout } from '../kserve/client/types.js';

/** The server side of the extension, as the HTTP and gRPC control clients offer it. */
export interface SharedMemoryRegistrar {
  registerSystemSharedMemory(name: string, key: string, offset: number, byteSize: number): Promise<void>;
  unregisterSystemSharedMemory(name: string): Promise<void>;
}

const ALIGN = 64;
const align = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;

export class PerfSharedMemory {
  private constructor(
    private readonly registrar: SharedMemoryRegistrar,
    private readonly region: string,
    private readonly file: string,
    /** Each request's layout, in the order of the requests given. */
    readonly layouts: SharedMemoryLayout[],
  ) {}

  static async create(requests: RequestInputs[], outputs: string[], outputBytes: number, registrar: SharedMemoryRegistrar): Promise<PerfSharedMemory> {
    const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
    const region = `gebe_perf_${id}`;
    const key = `/perf-${id}`;
    const chunks: Uint8Array[] = [];
    let end = 0;
    const place = (byteSize: number, data?: Uint8Array) => {
      const offset = align(end);
      if (offset > end) chunks.push(new Uint8Array(offset - end));
      chunks.push(data ?? new Uint8Array(byteSize));
      end = offset + byteSize;
      return { region, offset, byteSize };
    };
    const outputPlaces = new Map(outputs.map((name) => [name, place(outputBytes)]));
    const layouts = requests.map((inputs) => ({ inputs: inputs.map((t) => place(t.data.byteLength, t.data)), outputs: outputPlaces }));
    const file = `/dev/shm${key}`;
    writeFileSync(file, Buffer.concat([...chunks, new Uint8Array(end === 0 ? 1 : 0)]), { mode: 0o600 });
    try {
      await registrar.registerSystemSharedMemory(region, key, 0, Math.max(end, 1));
    } catch (err) {
      rmSync(file, { force: true });
      throw err;
    }
    return new PerfSharedMemory(registrar, region, file, layouts);
  }

  async release(): Promise<void> {
    await this.registrar.unregisterSystemSharedMemory(this.region);
    rmSync(this.file, { force: true });
  }
}
