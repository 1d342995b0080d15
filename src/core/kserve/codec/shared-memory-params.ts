/**
 * Triton's system shared-memory extension as the infer codecs see it: an input or a requested
 * output whose parameters name a registered region (`shared_memory_region`, with
 * `shared_memory_byte_size` and an optional `shared_memory_offset`) has its bytes there instead of
 * in the request or the response. The same parameters over HTTP (JSON values) and gRPC
 * (InferParameter values, read as plain ones first).
 */
import { clientText, ProtocolError } from '../protocol-error.js';

/** Where a tensor lies: a region the client registered, and a window of it. */
export interface SharedMemoryPlace {
  region: string;
  offset: number;
  byteSize: number;
}

/** The server's registered regions as the codecs reach them (server/shared-memory.ts). */
export interface SharedMemoryLookup {
  /** The window's bytes (a view of the client's memory); throws Triton's error when there is none. */
  view(place: SharedMemoryPlace): Uint8Array;
}

/** A requested output that goes to shared memory: where, and the bytes it may fill. */
export interface SharedOutput {
  place: SharedMemoryPlace;
  bytes: Uint8Array;
}

/** The place `parameters` name, or undefined when they name no region. */
export function sharedMemoryPlace(parameters: Record<string, unknown> | undefined, what: string): SharedMemoryPlace | undefined {
  const region = parameters?.shared_memory_region;
  if (region === undefined) return undefined;
  if (typeof region !== 'string' || region === '') throw ProtocolError.badRequest(`parameter 'shared_memory_region' of ${what} must be a region's name, got ${clientText(JSON.stringify(region) ?? String(region))}`);
  const size = parameters!.shared_memory_byte_size;
  if (size === undefined) throw ProtocolError.badRequest(`${what} names shared memory region '${clientText(region)}' without 'shared_memory_byte_size'; give the size of its window`);
  const offset = parameters!.shared_memory_offset ?? 0;
  for (const [name, value] of [['shared_memory_byte_size', size], ['shared_memory_offset', offset]] as const) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw ProtocolError.badRequest(`parameter '${name}' of ${what} must be a non-negative integer, got ${clientText(JSON.stringify(value) ?? String(value))}`);
    }
  }
  return { region, offset: offset as number, byteSize: size as number };
}

/** An input that names a region and carries data too (JSON data, binary_data_size, gRPC contents). */
export function carriesDataToo(input: string, place: SharedMemoryPlace): ProtocolError {
  return ProtocolError.badRequest(`input '${input}' names shared memory region '${clientText(place.region)}' and also carries data; send its elements one way`);
}

/** A tensor names a region that is not registered (Triton's words). */
export function regionNotFound(region: string): ProtocolError {
  return ProtocolError.notFound(`Unable to find shared memory region: '${clientText(region)}'`);
}

/** A region named where the server has none to offer (a codec given no lookup). */
export const NO_SHARED_MEMORY: SharedMemoryLookup = {
  view(place) {
    throw regionNotFound(place.region);
  },
};

/** Writes output `name`'s bytes into its window, or refuses in Triton's words when they do not fit. */
export function writeSharedOutput(name: string, data: Uint8Array, target: SharedOutput): void {
  if (data.byteLength > target.bytes.byteLength) {
    throw ProtocolError.badRequest(`shared memory size specified with the request for output '${name}' (${target.bytes.byteLength} bytes) should be at least ${data.byteLength} bytes to hold the results`);
  }
  target.bytes.set(data);
}
