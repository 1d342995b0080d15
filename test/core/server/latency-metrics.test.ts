/**
 * The latency summaries' exposition (server/latency-metrics.ts, written by prom-client through
 * prometheus-families.ts): Triton's family names, one block per family with the models that have
 * it, quantile samples then _sum and _count, Nan for an empty window (as prom-client and Triton's
 * prometheus-cpp write it), label values escaped; nothing at all when no model has summaries.
 */
import { describe, expect, it } from 'vitest';
import type { LatencySummaries } from '../../../src/core/executor/latency-summaries.js';
import type { LoadedModel } from '../../../src/core/executor/types.js';
import { latencySummaryFamilies } from '../../../src/core/server/latency-metrics.js';
import { familiesText } from '../../../src/core/server/prometheus-families.js';

const latencySummaryText = (models: LoadedModel[], quantiles: number[]) => familiesText(latencySummaryFamilies(models, quantiles));

function model(name: string, summaries?: LatencySummaries): LoadedModel {
  return { name, version: '1', latencyMetrics: summaries && (() => ({ enable: () => undefined, readSummaries: () => summaries })) } as unknown as LoadedModel;
}

describe('latencySummaryText', () => {
  it('writes each family once, for the models that have it, in Prometheus\' text format', async () => {
    const reading = { count: 3, sumUs: 30.5, quantilesUs: [9.5, 12] };
    const text = await latencySummaryText([
      model('a', { request: reading, queue: { count: 0, sumUs: 0, quantilesUs: [Number.NaN, Number.NaN] } }),
      model('b', { cache_hit: reading }),
      model('plain'),
    ], [0.5, 0.99]);
    expect(text).toBe([
      '# HELP nv_inference_request_summary_us Summary of inference request duration in microseconds (includes cached requests)',
      '# TYPE nv_inference_request_summary_us summary',
      'nv_inference_request_summary_us{model="a",version="1",quantile="0.5"} 9.5',
      'nv_inference_request_summary_us{model="a",version="1",quantile="0.99"} 12',
      'nv_inference_request_summary_us_sum{model="a",version="1"} 30.5',
      'nv_inference_request_summary_us_count{model="a",version="1"} 3',
      '',
      '# HELP nv_inference_queue_summary_us Summary of inference queuing duration in microseconds (includes cached requests)',
      '# TYPE nv_inference_queue_summary_us summary',
      'nv_inference_queue_summary_us{model="a",version="1",quantile="0.5"} Nan',
      'nv_inference_queue_summary_us{model="a",version="1",quantile="0.99"} Nan',
      'nv_inference_queue_summary_us_sum{model="a",version="1"} 0',
      'nv_inference_queue_summary_us_count{model="a",version="1"} 0',
      '',
      '# HELP nv_cache_hit_summary_per_model Summary of cache hit (lookup) duration per model, in microseconds',
      '# TYPE nv_cache_hit_summary_per_model summary',
      'nv_cache_hit_summary_per_model{model="b",version="1",quantile="0.5"} 9.5',
      'nv_cache_hit_summary_per_model{model="b",version="1",quantile="0.99"} 12',
      'nv_cache_hit_summary_per_model_sum{model="b",version="1"} 30.5',
      'nv_cache_hit_summary_per_model_count{model="b",version="1"} 3',
      '',
    ].join('\n'));
  });

  it('escapes label values and writes nothing when no model has summaries', async () => {
    const text = await latencySummaryText([model('we"ird\\\n', { request: { count: 1, sumUs: 1, quantilesUs: [1] } })], [0.5]);
    expect(text).toContain('nv_inference_request_summary_us{model="we\\"ird\\\\\\n",version="1",quantile="0.5"} 1');
    expect(await latencySummaryText([model('plain')], [0.5])).toBe('');
  });
});
