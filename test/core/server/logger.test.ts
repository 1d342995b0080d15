import { describe, expect, it } from 'vitest';
import { createLogger, LOG_LINES_PER_SECOND } from '../../../src/core/server/logger.js';

function capture() {
  const lines: string[] = [];
  return { lines, out: { write: (s: string) => lines.push(s) } };
}

describe('createLogger', () => {
  it('rate-limits one error message per second and counts what it left out', () => {
    const { lines, out } = capture();
    let t = Date.parse('2026-01-01T00:00:00Z');
    const log = createLogger(out as never, 'text', false, () => new Date(t));
    for (let i = 0; i < 10_000; i++) log.error('grpc handler failed', { error: 'bad request' });
    log.error('another message');
    expect(lines.length).toBe(LOG_LINES_PER_SECOND + 1);
    t += 1000;
    log.error('grpc handler failed', { error: 'bad request' });
    expect(lines.at(-1)).toMatch(/E grpc handler failed error="bad request" suppressed_before=9990\n$/);
  });

  it('never limits info lines', () => {
    const { lines, out } = capture();
    const log = createLogger(out as never);
    for (let i = 0; i < 100; i++) log.info('model ready', { model: 'm' });
    expect(lines.length).toBe(100);
  });

  it('writes what its settings allow, which may change while it runs (the logging extension)', () => {
    const { lines, out } = capture();
    const log = createLogger(out as never);
    const all = () => ['info', 'warn', 'error', 'verbose'].forEach((level, i) => (log as unknown as Record<string, (m: string) => void>)[level]!(`line ${i}`));
    all();
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['I', 'W', 'E']);
    const heard: boolean[] = [];
    log.control!.onVerboseChange((on) => heard.push(on));
    log.control!.set({ info: false, warning: false, verboseLevel: 2, format: 'json' });
    lines.length = 0;
    all();
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['error', 'verbose']);
    expect(log.verboseEnabled).toBe(true);
    log.control!.set({ verboseLevel: 3 });
    log.control!.set({ verboseLevel: 0, error: false });
    lines.length = 0;
    all();
    expect([lines, heard, log.verboseEnabled]).toEqual([[], [true, false], false]);
  });
});
