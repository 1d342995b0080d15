/**
 * The registry behind pb_utils custom metrics, driven with the control messages a stub sends:
 * its bounds answer model.py with their reason, messages model.py's own checks never send are
 * protocol errors (the process is ended), and handles let go of what they held.
 */
import { describe, expect, it } from 'vitest';
import { CUSTOM_METRIC_LIMITS, CustomMetricHandles, CustomMetricRegistry, ProtocolError } from '../../../src/core/python-backend/custom-metrics.js';

function stub(registry: CustomMetricRegistry) {
  const handles = new CustomMetricHandles(registry);
  let call = 0;
  return {
    handles,
    /** Sends one message that wants a reply; returns the reply. */
    call(fields: Record<string, unknown>): Record<string, unknown> {
      let reply: Record<string, unknown> | undefined;
      handles.handle({ op: 'metric', call: ++call, ...fields }, (r) => (reply = r));
      return reply!;
    },
    send(fields: Record<string, unknown>): void {
      handles.handle({ op: 'metric', ...fields }, () => {
        throw new Error('no reply expected');
      });
    },
  };
}

describe('custom metric registry', () => {
  it('bounds the families of the server and the label sets of a family', () => {
    const registry = new CustomMetricRegistry();
    const s = stub(registry);
    let id = 0;
    for (let i = 0; i < CUSTOM_METRIC_LIMITS.families; i++) expect(s.call({ action: 'family', family: ++id, name: `f${i}`, description: '', kind: 0 })).not.toHaveProperty('error');
    expect(s.call({ action: 'family', family: ++id, name: 'one_more', description: '', kind: 0 }).error).toBe(`the server holds ${CUSTOM_METRIC_LIMITS.families} custom metric families, its limit`);
    // The same name again is the same family: no new one.
    expect(s.call({ action: 'family', family: ++id, name: 'f0', description: '', kind: 0 })).not.toHaveProperty('error');
    const family = id;
    for (let i = 0; i < CUSTOM_METRIC_LIMITS.seriesPerFamily; i++) s.call({ action: 'metric', family, metric: ++id, labels: { i: String(i) } });
    expect(s.call({ action: 'metric', family, metric: ++id, labels: { i: 'x' } }).error).toBe(`metric family 'f0' holds ${CUSTOM_METRIC_LIMITS.seriesPerFamily} label sets, its limit`);
    // An existing label set is still taken (it adds no series).
    expect(s.call({ action: 'metric', family, metric: ++id, labels: { i: '7' } })).not.toHaveProperty('error');
    const tooMany = Object.fromEntries(Array.from({ length: CUSTOM_METRIC_LIMITS.labelsPerSeries + 1 }, (_, i) => [`l${i}`, '']));
    expect(s.call({ action: 'metric', family, metric: ++id, labels: tooMany }).error).toMatch(/^a metric has 65 labels, over the limit of 64$/);
    expect(s.call({ action: 'family', family: ++id, name: 'x'.repeat(300), description: '', kind: 0 }).error).toBe('metric name of 300 characters is over the limit of 256');
    s.handles.releaseAll();
    expect(s.call({ action: 'family', family: ++id, name: 'after', description: '', kind: 0 })).not.toHaveProperty('error');
  });

  it('bounds the label sets and label characters of all families together', () => {
    const s = stub(new CustomMetricRegistry());
    let id = 0;
    const fill = (family: number, count: number, value: string): Record<string, unknown> | undefined => {
      for (let i = 0; i < count; i++) {
        const reply = s.call({ action: 'metric', family, metric: ++id, labels: { i: `${i}`, v: value } });
        if (reply.error) return reply;
      }
      return undefined;
    };
    const families = Array.from({ length: 12 }, (_, f) => {
      s.call({ action: 'family', family: ++id, name: `f${f}`, description: '', kind: 1 });
      return id;
    });
    // Long labels: the characters run out before the label sets do.
    expect(fill(families[0]!, 10_000, 'x'.repeat(1000))).toBeUndefined();
    expect(fill(families[1]!, 10_000, 'x'.repeat(1000))).toEqual({ op: 'metric_reply', call: expect.any(Number), error: `the labels of the server's custom metrics would pass ${CUSTOM_METRIC_LIMITS.labelChars} characters, its limit` });
    // What a process lets go of counts no more.
    s.handles.releaseAll();
    s.call({ action: 'family', family: ++id, name: 'again', description: '', kind: 1 });
    expect(fill(id, 10_000, 'x'.repeat(1000))).toBeUndefined();
    // Short labels, from two processes (each under its own bound on objects): the label sets run out.
    const registry = new CustomMetricRegistry();
    const processes = [stub(registry), stub(registry)];
    id = 0;
    let refused: unknown;
    for (let f = 0; f < 11 && !refused; f++) {
      const t = processes[f % 2]!;
      const family = ++id;
      t.call({ action: 'family', family, name: `g${f}`, description: '', kind: 1 });
      for (let i = 0; i < CUSTOM_METRIC_LIMITS.seriesPerFamily && !refused; i++) refused = t.call({ action: 'metric', family, metric: ++id, labels: { i: `${i}` } }).error;
    }
    expect(refused).toBe(`the server holds ${CUSTOM_METRIC_LIMITS.series} custom metric label sets, its limit`);
  });

  it('keeps a series while a handle holds it, and a family while a family handle does', async () => {
    const registry = new CustomMetricRegistry();
    const a = stub(registry);
    const b = stub(registry);
    a.call({ action: 'family', family: 1, name: 'shared', description: 'first', kind: 1 });
    b.call({ action: 'family', family: 1, name: 'shared', description: 'second', kind: 1 });
    a.call({ action: 'metric', family: 1, metric: 2, labels: { x: '1', y: '2' } });
    b.call({ action: 'metric', family: 1, metric: 2, labels: { y: '2', x: '1' } });
    a.send({ action: 'set', metric: 2, value: 5 });
    b.send({ action: 'increment', metric: 2, value: '-Inf' });
    expect(a.call({ action: 'value', metric: 2 })).toEqual({ op: 'metric_reply', call: 3, value: '-Inf' });
    expect(await registry.text()).toBe('# HELP shared first\n# TYPE shared gauge\nshared{x="1",y="2"} -Inf\n');
    a.send({ action: 'metric_delete', metric: 2 });
    expect(await registry.text()).toContain('shared{x="1",y="2"}');
    b.send({ action: 'metric_delete', metric: 2 });
    expect(await registry.text()).toBe('# HELP shared first\n# TYPE shared gauge\n');
    a.send({ action: 'family_delete', family: 1 });
    b.handles.releaseAll();
    expect(await registry.text()).toBe('');
  });

  it('takes what model.py never sends as a protocol error', () => {
    const s = stub(new CustomMetricRegistry());
    s.call({ action: 'family', family: 1, name: 'c', description: '', kind: 0 });
    s.call({ action: 'metric', family: 1, metric: 2, labels: {} });
    for (const bad of [
      { action: 'nonsense' },
      { action: 'family', family: 1, name: 'again', description: '', kind: 0 },  // a handle id in use
      { action: 'family', family: 3, name: 'k', description: '', kind: 9 },
      { action: 'family', family: 'x', name: 'k', description: '', kind: 0 },
      { action: 'set', metric: 2, value: 1 },  // set on a counter
      { action: 'increment', metric: 2, value: -1 },
      { action: 'increment', metric: 2, value: 'many' },
      { action: 'metric', family: 1, metric: 5, labels: ['a'] },
    ]) {
      expect(() => s.call(bad), JSON.stringify(bad)).toThrow(ProtocolError);
    }
  });
});
