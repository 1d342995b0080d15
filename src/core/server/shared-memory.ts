/**
 * Triton's system shared-memory extension: a client on the same host puts tensors in a POSIX
 * shared-memory object (shm_open's /dev/shm/<key>), registers a window of it by name, and names
 * the region in an infer request's input and output parameters instead of sending the bytes
 * (kserve/codec/shared-memory-params.ts reads those). The CUDA extension is refused: there are no
 * GPUs here. HTTP (/v2/systemsharedmemory, /v2/cudasharedmemory) and gRPC share these answers.
 *
 * What a client may name is bounded: keys are shm_open names (no other directory), opened without
 * following links, regular files of the user gebe runs as only; gebe's own shared memory (the Python stubs' arenas, keys
 * beginning with `gebe-`) cannot be registered; at most MAX_REGIONS at once. A window must lie
 * inside its object. Unregistering drops the server's mapping once no request still reads it.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { nativeShm } from '../executor/shm-addon.js';
import { clientText, ProtocolError } from '../kserve/protocol-error.js';
import { regionNotFound, type SharedMemoryLookup, type SharedMemoryPlace } from '../kserve/codec/shared-memory-params.js';

export type SharedMemoryKind = 'system' | 'cuda';

/** A region as the status endpoints answer it (Triton's fields). */
export interface RegionStatus {
  name: string;
  key: string;
  offset: number;
  byte_size: number;
}

/** Regions registered at once. */
export const MAX_REGIONS = 1024;
/** Keys of the shared memory gebe makes for itself (shared-arena.ts): never a client's to register. */
const RESERVED_KEY_PREFIX = 'gebe-';
const SHM_DIR = '/dev/shm';

export class SystemSharedMemory implements SharedMemoryLookup {
  private readonly regions = new Map<string, { status: RegionStatus; bytes: Uint8Array }>();

  register(name: string, key: unknown, offset: unknown, byteSize: unknown): void {
    if (!name) throw ProtocolError.badRequest("'region name' is necessary to register system shared memory region");
    if (typeof key !== 'string') throw ProtocolError.badRequest('Shared memory register request has no \'key\' field');
    const window = [offset ?? 0, byteSize].map((v) => (typeof v === 'bigint' ? Number(v) : v));
    if (byteSize === undefined) throw ProtocolError.badRequest("Shared memory register request has no 'byte_size' field");
    if (!window.every((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || window[1] === 0) {
      throw ProtocolError.badRequest(`failed to register shared memory region '${clientText(name)}': invalid args (offset and byte_size must be whole numbers, byte_size above 0)`);
    }
    const [start, size] = window as [number, number];
    if (this.regions.has(name)) throw ProtocolError.badRequest(`shared memory region '${clientText(name)}' already in manager`);
    if (this.regions.size >= MAX_REGIONS) throw ProtocolError.badRequest(`failed to register shared memory region '${clientText(name)}': ${MAX_REGIONS} regions are registered already; unregister some first`);
    const object = key.startsWith('/') ? key.slice(1) : key;
    if (!/^[^/\0]{1,255}$/.test(object) || object === '.' || object === '..') {
      throw ProtocolError.badRequest(`Unable to open shared memory region: '${clientText(key)}' (a key is an shm_open name: '/name', with no other '/')`);
    }
    if (object.startsWith(RESERVED_KEY_PREFIX)) {
      throw ProtocolError.badRequest(`cannot register shared memory region '${clientText(name)}': keys beginning with '/${RESERVED_KEY_PREFIX}' are gebe's own shared memory`);
    }
    let fd: number;
    try {
      fd = openSync(`${SHM_DIR}/${object}`, constants.O_RDWR | constants.O_NOFOLLOW);
    } catch {
      throw ProtocolError.badRequest(`Unable to open shared memory region: '${clientText(key)}'`);
    }
    try {
      const stat = fstatSync(fd);
      // An object another user can shrink under the mapping would crash the server on its next read (SIGBUS).
      if (process.getuid && stat.uid !== process.getuid()) {
        throw ProtocolError.badRequest(`cannot register shared memory region '${clientText(name)}': its object '${clientText(key)}' belongs to another user (uid ${stat.uid}); gebe registers only its own user's`);
      }
      if (!stat.isFile() || start + size > stat.size) throw ProtocolError.badRequest(`failed to register shared memory region '${clientText(name)}': invalid args (offset ${start} + byte_size ${size} beyond the object's ${stat.size} bytes)`);
      const mapped = new Uint8Array(nativeShm().map(fd, start + size));
      this.regions.set(name, { status: { name, key, offset: start, byte_size: size }, bytes: mapped.subarray(start) });
    } finally {
      closeSync(fd);
    }
  }

  /** One region (Triton: not found when it is not registered), or all of them. */
  status(name?: string): RegionStatus[] {
    if (!name) return [...this.regions.values()].map((r) => ({ ...r.status }));
    const region = this.regions.get(name);
    if (!region) throw ProtocolError.notFound(`Unable to find system shared memory region: '${clientText(name)}'`);
    return [{ ...region.status }];
  }

  /** One region, or all of them; a name not registered is no error (as in Triton). Requests in flight keep their views. */
  unregister(name?: string): void {
    if (name) this.regions.delete(name);
    else this.regions.clear();
  }

  view(place: SharedMemoryPlace): Uint8Array {
    const region = this.regions.get(place.region);
    if (!region) throw regionNotFound(place.region);
    if (place.offset >= region.bytes.byteLength) throw ProtocolError.badRequest(`Invalid offset for shared memory region: '${clientText(place.region)}'`);
    if (place.offset + place.byteSize > region.bytes.byteLength) throw ProtocolError.badRequest(`Invalid offset + byte size for shared memory region: '${clientText(place.region)}'`);
    return region.bytes.subarray(place.offset, place.offset + place.byteSize);
  }
}

/** The CUDA shared-memory extension: no region, and none can be registered (no GPUs). */
export function cudaSharedMemoryStatus(name?: string): never[] {
  if (name) throw ProtocolError.notFound(`Unable to find cuda shared memory region: '${clientText(name)}'`);
  return [];
}

export function registerCudaSharedMemory(name: string): never {
  throw ProtocolError.unsupported(`failed to register CUDA shared memory region: '${clientText(name)}', GPUs not supported (gebe serve: use system shared memory, or send the tensors in the request)`);
}
