import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { summarize, type PerfReport, type ReportRow } from '../../../src/core/perf/report.js';
import { formatCsv } from '../../../src/core/perf/reporters/csv.js';
import { formatHtml } from '../../../src/core/perf/reporters/html.js';
import { formatJson } from '../../../src/core/perf/reporters/json.js';
import { formatTable } from '../../../src/core/perf/reporters/table.js';

function row(batchSize: number, concurrency: number, throughput: number, p99: number, saturated = false): ReportRow {
  return {
    batchSize, concurrency, throughput, requestsPerSecond: throughput / batchSize,
    latencyUs: { avg: p99 / 2, p50: p99 / 2, p90: p99 * 0.8, p95: p99 * 0.9, p99 },
    clientSendUs: 10, clientRecvUs: 20, networkServerUs: 30,
    server: { inferenceCount: 1000, executionCount: 500, queueUs: 40.4, computeInputUs: 5, computeInferUs: 300.6, computeOutputUs: 6 },
    windows: 3, clientLoopBusy: saturated ? 0.99 : 0.3, clientSaturated: saturated, status: 'stable',
  };
}

function report(rows: ReportRow[], thresholdMs?: number): PerfReport {
  return {
    model: { name: 'resnet<50>', version: '1' }, target: 'http://127.0.0.1:8000 (HTTP)', load: 'concurrency', mode: 'http', clientThreads: 2,
    rows, summary: summarize(rows, undefined, thresholdMs),
  };
}

const rows = [row(1, 1, 900, 2000), row(1, 4, 2500, 6000), row(8, 1, 4000, 9000), row(8, 4, 5200, 30_000, true)];

describe('summary', () => {
  it('names the best-throughput setting and the best under the latency threshold', () => {
    const s = report(rows, 4).summary; // avg latency = p99 / 2 here
    expect(s.best).toMatchObject({ batchSize: 8, concurrency: 4, throughput: 5200 });
    expect(s.bestUnderThreshold).toMatchObject({ batchSize: 1, concurrency: 4, throughput: 2500, latencyUs: 3000 });
    expect(s.clientSaturated).toEqual([{ batchSize: 8, concurrency: 4 }]);
  });

  it('says null when no setting meets the threshold', () => {
    expect(report(rows, 0.1).summary.bestUnderThreshold).toBeNull();
  });
});

describe('CSV', () => {
  it("uses perf_analyzer's header and µs columns for a single batch size", () => {
    const csv = formatCsv(report(rows.slice(0, 2))).split('\n');
    expect(csv[0]).toBe('Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency');
    expect(csv[1]).toBe('1,900,10,30,40,5,301,6,20,1000,1600,1800,2000');
    expect(csv).toHaveLength(4); // header, two rows, trailing newline
  });

  it('adds perf_analyzer\'s Server Cache Hit and Server Cache Miss columns where the response cache saw the requests', () => {
    const cachedRows = rows.slice(0, 2).map((r) => ({ ...r, server: { ...r.server!, cache: { hitCount: 90, missCount: 10, hitUs: 7.6, missUs: 2.2 } } }));
    const csv = formatCsv(report(cachedRows)).split('\n');
    expect(csv[0]).toBe('Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Server Cache Hit,Server Cache Miss,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency');
    expect(csv[1]).toBe('1,900,10,30,40,5,301,6,8,2,20,1000,1600,1800,2000');
    const table = formatTable(report(cachedRows), new Chalk({ level: 0 }));
    expect(table).toContain('90 hits, 10 misses (90% hits) · a hit 0.008 · a miss\'s lookup and insertion 0.002');
  });

  it('appends a Batch Size column after perf_analyzer columns for a batch sweep', () => {
    const csv = formatCsv(report(rows)).split('\n');
    expect(csv[0]!.endsWith(',p99 latency,Batch Size')).toBe(true);
    expect(csv[3]!.split(',')).toHaveLength(14);
    expect(csv[3]!.endsWith(',8')).toBe(true);
  });
});

describe('JSON', () => {
  it('prints the report data that the other reporters format', () => {
    const r = report(rows, 4);
    expect(JSON.parse(formatJson(r))).toEqual(JSON.parse(JSON.stringify(r)));
  });
});

describe('table', () => {
  it('shows one row per setting, the summary and the saturation note', () => {
    const text = formatTable(report(rows, 4), new Chalk({ level: 0 }));
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/^batch\s+concurrency\s+infer\/s\s+avg ms\s+p50\s+p90\s+p95\s+p99\s+queue\s+c\.input\s+c\.infer\s+c\.output\s+status$/);
    expect(lines.slice(2, 6).map((l) => l.trim().split(/\s+/).slice(0, 3))).toEqual([['1', '1', '900'], ['1', '4', '2500'], ['8', '1', '4000'], ['8', '4', '5200*']]);
    expect(text).toContain('best throughput: batch 8, concurrency 4 → 5200 infer/s');
    expect(text).toContain('best under 4 ms (avg): batch 1, concurrency 4 → 2500 infer/s at 3.00 ms');
    expect(text).toContain('client saturated a core at batch 8, concurrency 4: those figures may be client-bound; raise --client-threads (now 2)');
    expect(formatTable({ ...report(rows), mode: 'in-process', clientThreads: 0 }, new Chalk({ level: 0 }))).toContain('client-bound; one JS thread feeds the executor in process');
  });
});

describe('HTML report', () => {
  const html = formatHtml(report(rows, 4), new Date('2026-01-02T03:04:05Z'));

  it('is one self-contained file: no scripts, no links, no external resources', () => {
    expect(html).not.toMatch(/<script|<link|\ssrc=|\shref=|url\(/i);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('draws throughput, a percentile chart per batch size and the latency breakdown as inline SVG', () => {
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs.map((svg) => /aria-label="([^"]*)"/.exec(svg)![1])).toEqual([
      'Throughput vs concurrency', 'Latency percentiles, batch 1', 'Latency percentiles, batch 8', 'Where the average latency went',
    ]);
    expect(svgs[0]!.match(/<polyline/g)).toHaveLength(2);
    // p50, p90, p95 and p99, each with its own dash pattern.
    expect(svgs[1]!.match(/<polyline/g)).toHaveLength(4);
    expect(new Set(svgs[1]!.match(/<polyline[^>]*/g)!.map((l) => /stroke-dasharray="([^"]*)"/.exec(l)?.[1] ?? 'solid')).size).toBe(4);
    // One stacked bar per setting: client send, network, queue, compute input/infer/output, client recv.
    expect(svgs[3]!.match(/<rect [^>]*><title>b8 c4: /g)).toHaveLength(7);
  });

  it('puts a unit on every figure column and says what was measured', () => {
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(html)![1]!;
    for (const th of head.match(/<th>[^<]*<\/th>/g)!.slice(2, 12)) expect(th).toMatch(/\((ms|infer\/s)\)/);
    const withFacts = formatHtml({
      ...report(rows),
      environment: { gebeVersion: '0.1.0', node: 'v20.0.0', os: 'Linux 6 x64', cpu: 'Test CPU', cores: 2, memoryGiB: 4 },
      settings: { measurementMode: 'time_windows', measurementIntervalMs: 500, measurementRequestCount: 50, stabilityPercentage: 10, maxTrials: 5, inputData: 'zero', warmupRequestCount: 0 },
      modelConfig: { max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 100 } },
    }, new Date());
    expect(withFacts).toContain('<dd>Test CPU, 2 cores, 4 GiB</dd>');
    expect(withFacts).toContain('<dd>500 ms time windows</dd>');
    expect(withFacts).toContain('&quot;max_queue_delay_microseconds&quot;: 100');
  });

  it('says a --request-intervals run was on the intervals of its file', () => {
    const rateRows = [{ ...row(1, 1, 450, 2000), concurrency: undefined, requestRate: 500 }];
    const onIntervals = formatHtml({
      ...report(rateRows), load: 'request-rate',
      settings: { measurementMode: 'time_windows', measurementIntervalMs: 500, measurementRequestCount: 50, stabilityPercentage: 10, maxTrials: 5, inputData: 'zero', warmupRequestCount: 0,
        requestIntervals: { file: '/tmp/gaps.txt', intervals: 2 } },
    }, new Date());
    expect(onIntervals).toContain('<dt>load</dt><dd>the 2 intervals of /tmp/gaps.txt, cycled (the request rate is the one they make)</dd>');
    expect(onIntervals).toContain('<th>request rate (req/s)</th>');
  });

  it('marks unstable and failed settings in their rows', () => {
    const marked = formatHtml(report([rows[0]!, { ...rows[1]!, status: 'unstable', note: 'did not stabilise' }, { ...rows[2]!, status: 'failed', note: 'HTTP 503' }]), new Date());
    expect(marked).toContain('<td class="unstable" title="did not stabilise">unstable</td>');
    expect(marked).toContain('<li><b class="failed">failed</b> batch 8, concurrency 1: HTTP 503</li>');
  });

  it('escapes names that look like markup', () => {
    expect(html).toContain('resnet&lt;50&gt;');
    expect(html).not.toContain('resnet<50>');
  });
});
