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
});
