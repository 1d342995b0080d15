/**
 * perf's sequences (src/core/perf/sequences.ts): each virtual user walks its own sequences of
 * --sequence-length requests with START/END flags and ids from its own share of the range, across
 * drivers too (splitPlan numbers the users).
 */
import { describe, expect, it } from 'vitest';
import { LoadDriver, type LoadPlan } from '../../../src/core/perf/driver.js';
import { splitPlan } from '../../../src/core/perf/driver-handle.js';
import type { InferClient } from '../../../src/core/kserve/client/types.js';
import { SequenceCursor, type SequenceStep } from '../../../src/core/perf/sequences.js';

describe('SequenceCursor', () => {
  it('flags the first request START and the last END, then moves to the next id of its share', () => {
    const cursor = new SequenceCursor({ length: 3, variation: 0, idStart: 10, idEnd: 19, firstUser: 0, users: 2 }, 1);
    const steps = Array.from({ length: 7 }, () => cursor.next());
    expect(steps).toEqual([
      { id: 15, start: true, end: false }, { id: 15, start: false, end: false }, { id: 15, start: false, end: true },
      { id: 16, start: true, end: false }, { id: 16, start: false, end: false }, { id: 16, start: false, end: true },
      { id: 17, start: true, end: false },
    ]);
  });

  it('wraps inside its share, so users never share an id', () => {
    const ids = (user: number) => {
      const c = new SequenceCursor({ length: 1, variation: 0, idStart: 1, idEnd: 6, firstUser: 0, users: 3 }, user);
      return Array.from({ length: 4 }, () => c.next().id);
    };
    expect([ids(0), ids(1), ids(2)]).toEqual([[1, 2, 1, 2], [3, 4, 3, 4], [5, 6, 5, 6]]);
  });

  it('draws each length within ±variation% of --sequence-length', () => {
    const draws = [0, 0.5, 0.999];
    let i = 0;
    const cursor = new SequenceCursor({ length: 10, variation: 20, idStart: 1, idEnd: 9, firstUser: 0, users: 1 }, 0, () => draws[i++ % 3]!);
    const lengths: number[] = [];
    let current = 0;
    for (let n = 0; n < 8 + 10 + 12; n += 1) {
      current += 1;
      if (cursor.next().end) {
        lengths.push(current);
        current = 0;
      }
    }
    expect(lengths).toEqual([8, 10, 12]);
  });

  it('a sequence of one request is START and END at once', () => {
    expect(new SequenceCursor({ length: 1, variation: 0, idStart: 1, idEnd: 9, firstUser: 0, users: 1 }, 0).next()).toEqual({ id: 1, start: true, end: true });
  });
});

describe('sequences through the driver', () => {
  it('each closed loop sends its own sequences in order, users numbered across drivers', async () => {
    const sent: SequenceStep[] = [];
    const client: InferClient = {
      infer: (step) => {
        sent.push(step!);
        return new Promise((resolve) => setTimeout(() => resolve(undefined), 1));
      },
      close: async () => {},
    };
    const plan: LoadPlan = { kind: 'concurrency', concurrency: 4, sequences: { length: 3, variation: 0, idStart: 1, idEnd: 400, firstUser: 0, users: 4 } };
    const shares = splitPlan(plan, 2);
    expect(shares.map((s) => s.kind === 'concurrency' && s.sequences?.firstUser)).toEqual([0, 2]);
    const drivers = shares.map((share) => {
      const d = new LoadDriver(client, (err) => { throw err; });
      d.start(share);
      return d;
    });
    await new Promise((r) => setTimeout(r, 60));
    await Promise.all(drivers.map((d) => d.stop()));
    // Per id: START first, END every third request, never two live sequences with one id.
    const byId = new Map<number, SequenceStep[]>();
    for (const s of sent) byId.set(s.id, [...(byId.get(s.id) ?? []), s]);
    expect(new Set([...byId.keys()].map((id) => Math.floor((id - 1) / 100))).size).toBe(4);
    for (const steps of byId.values()) {
      steps.forEach((s, k) => {
        expect(s.start).toBe(k % 3 === 0);
        expect(s.end).toBe(k % 3 === 2);
      });
    }
  });
});
