/**
 * The shared memory between gebe and one Python stub: a file in /dev/shm that both processes map
 * (gebe through the addon's mmap, the stub through Python's mmap), unlinked once both hold it.
 * gebe writes a batch's inputs from offset 0; the stub allocates its outputs (and BLS inputs) after
 * them. Either side may grow the file, never beyond `cap`; each control message carries the size
 * its sender knows, and every (offset, size) read here is checked against the mapping first.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeShm } from '../executor/shm-addon.js';

const ALIGN = 64;
const INITIAL_BYTES = 1 << 20;
/** What an instance's arena keeps between requests; memory above it is freed after each execute. */
export const ARENA_KEEP_BYTES = 64 << 20;

export const align = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;

export class SharedArena {
  private fd: number;
  private bytes: Uint8Array;
  private linked = true;

  private constructor(readonly path: string, fd: number, readonly cap: number) {
    this.fd = fd;
    const initial = Math.min(INITIAL_BYTES, cap);
    ftruncateSync(fd, initial);
    this.bytes = new Uint8Array(nativeShm().map(fd, initial));
  }

  /** A new private (0600) file in /dev/shm, or the temp directory where there is none. */
  static create(cap: number): SharedArena {
    const dir = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    const file = path.join(dir, `gebe-python-${process.pid}-${randomBytes(8).toString('hex')}`);
    return new SharedArena(file, openSync(file, 'wx+', 0o600), cap);
  }

  get size(): number {
    return this.bytes.byteLength;
  }

  /** Removes the file's name (both processes keep their mappings). */
  unlink(): void {
    if (!this.linked) return;
    this.linked = false;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }

  /** Maps `size` bytes when the stub has grown the file. */
  ensure(size: number): void {
    if (!Number.isSafeInteger(size) || size <= this.size) return;
    if (size > this.cap) throw new Error(`the Python stub announced ${size} bytes of shared memory, beyond the limit of ${this.cap}`);
    if (fstatSync(this.fd).size < size) throw new Error(`the Python stub announced ${size} bytes of shared memory, but the file is shorter`);
    this.bytes = new Uint8Array(nativeShm().map(this.fd, size));
  }

  /** Makes [offset, offset + nbytes) writable, growing the file (up to the cap) when needed. */
  reserve(offset: number, nbytes: number, what: string): void {
    const end = offset + nbytes;
    if (end > this.cap) {
      throw new Error(`${what} needs ${nbytes} bytes of shared memory, beyond gebe's limit of ${this.cap} bytes for one execute() of a Python model`);
    }
    if (end <= this.size) return;
    const grown = Math.min(this.cap, Math.max(end, this.size * 2));
    ftruncateSync(this.fd, grown);
    this.bytes = new Uint8Array(nativeShm().map(this.fd, grown));
  }

  /**
   * Gives the memory above `keep` bytes back to the system (the mapping and the size stay; those
   * pages read as zeros until written again), so a large request does not hold its memory after it.
   */
  discardAbove(keep: number): void {
    if (this.size > keep && this.fd >= 0) nativeShm().discard(this.fd, keep, this.size - keep);
  }

  /** Bytes of memory the file holds now (its allocated blocks). */
  allocatedBytes(): number {
    return this.fd >= 0 ? fstatSync(this.fd).blocks * 512 : 0;
  }

  write(offset: number, data: Uint8Array): void {
    this.bytes.set(data, offset);
  }

  /** A view of [offset, offset + size), or undefined when it is not inside the mapping. */
  view(offset: unknown, size: unknown): Uint8Array | undefined {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size)) return undefined;
    const o = offset as number;
    const s = size as number;
    if (o < 0 || s < 0 || o + s > this.size) return undefined;
    return this.bytes.subarray(o, o + s);
  }

  close(): void {
    this.unlink();
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
    this.fd = -1;
    // The mapping itself goes when the last view of it is collected.
    this.bytes = new Uint8Array(0);
  }
}
