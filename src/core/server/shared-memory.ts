/**
 * Triton's system and CUDA shared-memory extensions, which gebe does not implement: tensors travel
 * in the request and the response. Their endpoints still answer as a server that holds no region
 * does (status: none; unregister: nothing to do), and registering a region is refused in words
 * that say what to do instead, over HTTP (/v2/systemsharedmemory, /v2/cudasharedmemory) and gRPC
 * alike. So a client that tidies up first (perf_analyzer unregisters every region before it
 * starts) gets to the refusal that matters, not to a missing endpoint.
 */
import { clientText, ProtocolError } from '../kserve/protocol-error.js';

export type SharedMemoryKind = 'system' | 'cuda';

/** The regions registered: none, ever. A named one is not found, in Triton's words. */
export function sharedMemoryStatus(kind: SharedMemoryKind, name?: string): never[] {
  if (name) throw ProtocolError.notFound(`Unable to find ${kind === 'system' ? 'system' : 'cuda'} shared memory region: '${clientText(name)}'`);
  return [];
}

export function registerSharedMemory(kind: SharedMemoryKind, name: string): never {
  const what = kind === 'system' ? 'system shared memory' : 'CUDA shared memory';
  throw ProtocolError.unsupported(`failed to register ${what} region '${clientText(name)}': gebe serve does not implement the ${what} extension; send the tensors in the request (JSON data or binary_data_size) and read them from the response`);
}

/** Unregistering (a region, or all of them) has nothing to do: as in Triton, a name not registered is no error. */
export function unregisterSharedMemory(): void {}
