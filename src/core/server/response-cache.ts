/**
 * Triton's response cache (`gebe serve --cache-config local,size=<bytes>`): the answers of models
 * whose config has `response_cache { enable: true }`, kept by request so that a repeated request is
 * answered without running the model. One cache for the server, shared by every such model, bounded
 * by the bytes its answers hold and emptied least recently used first, as Triton's local cache.
 *
 * A request is keyed by the SHA-256 of everything that decides its answer: the model's load (name,
 * version, and which load of it), each input's name, datatype, shape and bytes (in name order: the
 * order a client lists them in does not change the answer), the outputs it asks for (in its order,
 * the answer's), and its parameters (a Python model reads them). Triton keys by a 64-bit hash of
 * fewer of these; a cryptographic digest means a client cannot craft a request that collides with
 * another's and be answered with someone else's result, and two requests that differ only in the
 * outputs they ask for do not share an answer.
 */
import { createHash } from 'node:crypto';
import type { InferRequest, InferResponse } from '../executor/types.js';

/** What an entry costs beyond its tensors' bytes (the digest, the maps' slots, the objects). */
const ENTRY_OVERHEAD_BYTES = 256;

interface Entry {
  /** The load of a model version the answer came from (cached-model.ts): its entries go when it unloads. */
  owner: string;
  bytes: number;
  response: InferResponse;
}

export class ResponseCache {
  /** By digest, in use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private used = 0;
  private evicted = 0;

  /** `capacity`: the bytes the answers may hold together (Triton's `size`). */
  constructor(readonly capacity: number) {}

  /** The cached answer to a request with this key, or undefined; a hit becomes the most recently used. */
  lookup(key: string): InferResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.response;
  }

  /**
   * Keeps `response` (its tensors copied, so the cache holds no view into a batch's buffers) under
   * `key`, evicting the least recently used answers until it fits. An answer larger than the whole
   * cache is not kept. Returns whether it was kept.
   */
  insert(key: string, owner: string, response: InferResponse): boolean {
    const bytes = ENTRY_OVERHEAD_BYTES + response.outputs.reduce((n, o) => n + o.data.byteLength + o.name.length, 0);
    if (bytes > this.capacity) return false;
    this.remove(key);
    for (const [oldest, entry] of this.entries) {
      if (this.used + bytes <= this.capacity) break;
      this.remove(oldest, entry);
      this.evicted++;
    }
    // Every hit hands out these objects: frozen, so no consumer can change what the next one gets.
    const outputs = response.outputs.map((o) => Object.freeze({ ...o, shape: Object.freeze([...o.shape]) as number[], data: Uint8Array.prototype.slice.call(o.data) }));
    this.entries.set(key, { owner, bytes, response: Object.freeze({ ...response, id: undefined, outputs: Object.freeze(outputs) as InferResponse['outputs'] }) });
    this.used += bytes;
    return true;
  }

  /** Drops every answer of one owner (a model version's load that unloads). */
  dropOwner(owner: string): void {
    for (const [key, entry] of this.entries) if (entry.owner === owner) this.remove(key, entry);
  }

  get usedBytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get evictions(): number {
    return this.evicted;
  }

  private remove(key: string, entry = this.entries.get(key)): void {
    if (!entry) return;
    this.entries.delete(key);
    this.used -= entry.bytes;
  }
}

/** The part of an owner's name that names the model version (each load adds its own number). */
export function cacheOwner(model: string, version: string): string {
  return `${model}\u0000${version}`;
}

/**
 * The key of `request` to model `owner`: one JSON header (self-delimiting, names escaped) naming
 * everything but the inputs' bytes, with each input's byte length, then the bytes in the header's
 * order, so no two different requests give the same bytes to hash.
 */
export function requestKey(owner: string, request: InferRequest): string {
  const inputs = [...request.inputs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // The outputs in the client's order: the answer lists them in that order.
  const header = [owner, inputs.map((t) => [t.name, t.datatype, t.shape, t.data.byteLength]), request.outputs ?? null, sortedEntries(request.parameters)];
  const hash = createHash('sha256').update(JSON.stringify(header));
  for (const input of inputs) hash.update(input.data);
  return hash.digest('base64');
}

function sortedEntries(parameters: InferRequest['parameters']): Array<[string, unknown]> {
  return Object.entries(parameters ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
