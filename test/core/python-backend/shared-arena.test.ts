/** The shared-memory arena between gebe and a Python stub: bounds, growth, and memory given back. */
import { describe, expect, it } from 'vitest';
import { SharedArena } from '../../../src/core/python-backend/shared-arena.js';

const MiB = 1 << 20;

describe('SharedArena', () => {
  it('grows up to its cap, refuses beyond it, and checks every view against the mapping', () => {
    const arena = SharedArena.create(8 * MiB);
    try {
      expect(arena.size).toBe(MiB);
      arena.reserve(0, 3 * MiB, "output 'Y'");
      expect(arena.size).toBeGreaterThanOrEqual(3 * MiB);
      arena.write(3 * MiB - 4, Uint8Array.of(1, 2, 3, 4));
      expect([...arena.view(3 * MiB - 4, 4)!]).toEqual([1, 2, 3, 4]);
      expect(() => arena.reserve(4 * MiB, 5 * MiB, "output 'Y'")).toThrow(/output 'Y' needs 5242880 bytes of shared memory, beyond gebe's limit of 8388608 bytes/);
      expect(arena.view(arena.size - 2, 4)).toBeUndefined();
      expect(arena.view(-1, 1)).toBeUndefined();
      expect(arena.view(0.5, 1)).toBeUndefined();
      expect(() => arena.ensure(16 * MiB)).toThrow(/beyond the limit of 8388608/);
    } finally {
      arena.close();
    }
  });

  it('gives the memory of a large request back after it, keeping the first bytes', () => {
    const arena = SharedArena.create(256 * MiB);
    try {
      arena.reserve(0, 96 * MiB, 'input');
      arena.write(0, new Uint8Array(96 * MiB).fill(7));
      expect(arena.allocatedBytes()).toBeGreaterThanOrEqual(96 * MiB);
      arena.discardAbove(16 * MiB);
      expect(arena.allocatedBytes()).toBeLessThanOrEqual(16 * MiB + MiB);
      expect(arena.view(0, 1)![0]).toBe(7);
      expect(arena.view(32 * MiB, 1)![0]).toBe(0);
    } finally {
      arena.close();
    }
  });
});
