/**
 * Custom metrics of Python models (pb_utils.MetricFamily / Metric, Triton's API): counters, gauges
 * and histograms created in initialize() or execute(), by several models and instances, served on
 * /metrics beside gebe's own; every misuse raises TritonModelException in model.py with its
 * reason; a family goes when the last model holding it unloads. Real Python, a real server.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests } from '../../../helpers/python-env.js';
import { postJson } from '../helpers/http-client.js';
import { startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

const config = (name: string, instances = 1) => [
  `name: "${name}"`, 'backend: "python"', 'max_batch_size: 0',
  'input [ { name: "IN" data_type: TYPE_FP64 dims: [ 1 ] } ]', 'output [ { name: "OUT" data_type: TYPE_STRING dims: [ -1 ] } ]',
  `instance_group [ { kind: KIND_CPU count: ${instances} } ]`, '',
].join('\n');

const HEADER = [
  'import json', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
  'M = pb_utils.MetricFamily',
  'def answer(values):',
  '    return pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([json.dumps(values).encode()], dtype=np.object_))])',
  'def raised(f):',
  '    try:',
  '        f()',
  '    except pb_utils.TritonModelException as e:',
  '        return str(e)',
  '    return "did not raise"',
];

// Two instances: each creates the same families and series in initialize(); they share them.
const METERED = [
  ...HEADER,
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.requests = M("metered_requests", "Requests \\"seen\\" by\\nmodel.py", M.COUNTER)',
  '        self.count = self.requests.Metric(labels={"model": "metered", "path": "a\\\\b"})',
  '        self.depth_family = M("metered_depth", "Last input", M.GAUGE)',
  '        self.depth = self.depth_family.Metric()',
  '        self.latency_family = M("metered_latency_seconds", "Input as a latency", M.HISTOGRAM)',
  '        self.latency = self.latency_family.Metric(labels={"model": "metered"}, buckets=[0.1, 1.0, 2.5])',
  '    def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            v = float(pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()[0])',
  '            self.count.increment(1)',
  '            self.depth.set(v)',
  '            self.latency.observe(v)',
  '            out.append(answer([self.count.value(), self.depth.value()]))',
  '        return out',
];

// Every misuse Triton's API refuses, each answered with its message; and what is shared.
const CHECKS = [
  ...HEADER,
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.kept_family = M("checks_kept", "Held while the model is loaded", M.GAUGE)',
  '        self.kept = self.kept_family.Metric(labels={"k": "v"})',
  '    def execute(self, requests):',
  '        # A Metric does not keep its family alive (as in Triton): the families are held here.',
  '        families = [M("checks_counter", "c", M.COUNTER), M("checks_gauge", "g", M.GAUGE), M("checks_histogram", "h", M.HISTOGRAM)]',
  '        c = families[0].Metric(labels={"k": "v"})',
  '        g = families[1].Metric()',
  '        h = families[2].Metric(buckets=[])',
  '        g.increment(2.5); g.increment(-1); g.set(float("nan")); nan = g.value(); g.set(float("-inf")); neg_inf = g.value()',
  '        dying = M("checks_dying", "d", M.COUNTER)',
  '        orphan = dying.Metric()',
  '        del dying',
  '        families.append(M("metered_requests", "another description", M.COUNTER))',
  '        twin = families[-1].Metric(labels={"path": "a\\\\b", "model": "metered"})',
  '        twin.increment(100)',
  '        results = {',
  '            "negative": raised(lambda: c.increment(-1)),',
  '            "counter_set": raised(lambda: c.set(1)),',
  '            "gauge_observe": raised(lambda: g.observe(1)),',
  '            "histogram_value": raised(lambda: h.value()),',
  '            "histogram_increment": raised(lambda: h.increment(1)),',
  '            "no_buckets": raised(lambda: M("checks_h2", "h", M.HISTOGRAM).Metric()),',
  '            "unsorted": raised(lambda: M("checks_h3", "h", M.HISTOGRAM).Metric(buckets=[2.5, 0.1])),',
  '            "repeated": raised(lambda: M("checks_h4", "h", M.HISTOGRAM).Metric(buckets=[1, 1])),',
  '            "gauge_buckets": raised(lambda: g and M("checks_gauge", "g", M.GAUGE).Metric(buckets=[1])),',
  '            "other_kind": raised(lambda: M("metered_requests", "x", M.GAUGE)),',
  '            "reserved": raised(lambda: M("nv_inference_count", "x", M.COUNTER)),',
  '            "bad_name": raised(lambda: M("9lives", "x", M.COUNTER)),',
  '            "bad_label": raised(lambda: M("checks_counter", "c", M.COUNTER).Metric(labels={"__name__": "x"})),',
  '            "label_type": raised(lambda: M("checks_counter", "c", M.COUNTER).Metric(labels={"k": 1})),',
  '            "bad_kind": raised(lambda: M("checks_kind", "x", 7)),',
  '            "not_a_number": raised(lambda: g.set("1")),',
  '            "orphan": raised(lambda: orphan.increment(1)),',
  '            "shared": twin.value(),',
  '            "nan": str(nan), "neg_inf": str(neg_inf),',
  '        }',
  '        return [answer(results) for _ in requests]',
];

// Its first process holds a family from initialize() and dies in execute() (no __del__ runs);
// the process started after it holds none (a marker file says the first has been).
const CRASHER = [
  ...HEADER, 'import os',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        marker = os.path.join(args["model_repository"], "first")',
  '        if not os.path.exists(marker):',
  '            open(marker, "w").close()',
  '            self.family = M("crasher_alive", "Held by a process that dies", M.GAUGE)',
  '            self.metric = self.family.Metric()',
  '    def execute(self, requests):',
  '        os._exit(3)',
];

let server: RealServer;

async function infer(model: string, value: number): Promise<unknown> {
  const res = await postJson(`${server.http}/v2/models/${model}/infer`, { inputs: [{ name: 'IN', datatype: 'FP64', shape: [1], data: [value] }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return JSON.parse((res.body as { outputs: Array<{ data: string[] }> }).outputs[0]!.data[0]!);
}

async function scrape(): Promise<string> {
  return (await fetch(server.metrics)).text();
}

describe.skipIf(!python.available)('custom metrics of Python models (pb_utils.MetricFamily)', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-custom-metrics-'));
    for (const [name, body, instances] of [['metered', METERED, 2], ['checks', CHECKS, 1], ['crasher', CRASHER, 1]] as const) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), config(name, instances));
      writeFileSync(path.join(repo, name, '1', 'model.py'), [...body, ''].join('\n'));
    }
    server = await startRealServer(repo, 'explicit', ['metered', 'checks', 'crasher']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves counters, gauges and histograms on /metrics, one series per label set across instances', async () => {
    expect(await infer('metered', 0.05)).toEqual([1, 0.05]);
    expect(await infer('metered', 1.5)).toEqual([2, 1.5]);
    expect(await infer('metered', 6)).toEqual([3, 6]);
    const text = await scrape();
    expect(text).toContain('# HELP metered_requests Requests "seen" by\\nmodel.py\n# TYPE metered_requests counter\nmetered_requests{model="metered",path="a\\\\b"} 3\n');
    expect(text).toContain('# TYPE metered_depth gauge\nmetered_depth 6\n');
    expect(text).toContain([
      '# TYPE metered_latency_seconds histogram',
      'metered_latency_seconds_bucket{model="metered",le="0.1"} 1',
      'metered_latency_seconds_bucket{model="metered",le="1"} 1',
      'metered_latency_seconds_bucket{model="metered",le="2.5"} 2',
      'metered_latency_seconds_bucket{model="metered",le="+Inf"} 3',
      'metered_latency_seconds_sum{model="metered"} 7.55',
      'metered_latency_seconds_count{model="metered"} 3',
    ].join('\n'));
    // gebe's own families are still there, each once.
    expect(text.match(/^# TYPE nv_inference_count counter$/gm)).toHaveLength(1);
  });

  it('raises TritonModelException in model.py for each misuse, naming it', async () => {
    const results = (await infer('checks', 0)) as Record<string, unknown>;
    expect(results).toEqual({
      negative: 'a COUNTER metric cannot be incremented by a negative value',
      counter_set: 'set() is not supported on a COUNTER metric',
      gauge_observe: 'observe() is not supported on a GAUGE metric',
      histogram_value: 'value() is not supported on a HISTOGRAM metric',
      histogram_increment: 'increment() is not supported on a HISTOGRAM metric',
      no_buckets: 'a HISTOGRAM metric needs buckets (a list of ascending upper bounds)',
      unsorted: 'histogram buckets must be finite and strictly ascending',
      repeated: 'histogram buckets must be finite and strictly ascending',
      gauge_buckets: 'buckets are for HISTOGRAM metrics only',
      other_kind: "metric family 'metered_requests' exists with kind COUNTER; a family keeps the kind it was created with",
      reserved: "metric family name 'nv_inference_count' starts with 'nv_', which the server's own metrics use",
      bad_name: "metric family name '9lives' is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)",
      bad_label: "label name '__name__' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with '__')",
      label_type: 'Metric labels must be a dict of strings to strings',
      bad_kind: 'MetricFamily kind must be MetricFamily.COUNTER, GAUGE or HISTOGRAM',
      not_a_number: "set()'s value must be a number, got str",
      orphan: "Invalid metric operation as the corresponding 'MetricFamily' has been deleted.",
      // metered's series (3 requests so far) with its labels in another order, from another model.
      shared: 103,
      nan: 'nan',
      neg_inf: '-inf',
    });
  });

  it('lets go of what a process held when it dies', async () => {
    expect(await scrape()).toContain('crasher_alive 0');
    const res = await postJson(`${server.http}/v2/models/crasher/infer`, { inputs: [{ name: 'IN', datatype: 'FP64', shape: [1], data: [1] }] });
    expect(res.status).toBe(500);
    expect(await scrape()).not.toContain('crasher_alive');
  });

  it('lets a family go when the last model holding it unloads', async () => {
    let text = await scrape();
    expect(text).toContain('metered_requests{');
    // What checks' execute() created went with its objects; what its initialize() keeps is served.
    expect(text).not.toContain('checks_counter');
    expect(text).toContain('checks_kept{k="v"} 0');
    await server.manager.unload('checks');
    text = await scrape();
    expect(text).not.toContain('checks_kept');
    expect(text).toContain('metered_requests{model="metered",path="a\\\\b"} 103');  // metered still holds it
    await server.manager.unload('metered');
    text = await scrape();
    expect(text).not.toMatch(/metered_/);
  });
});
