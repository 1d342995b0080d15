/**
 * perf_analyzer's flags that gebe perf accepts without acting on them, so that a perf_analyzer
 * command line (a script's, a README's) runs as it is: each says why it changes nothing. Hidden
 * from --help; perf names the ones given, with why, on stderr at start. perf_analyzer's flags gebe
 * perf acts on are its own options (index.ts), short spellings included (-p, -x, -l). Registered
 * and read through commands/ignored-flags.ts, as serve's.
 */
import type { IgnoredFlag } from '../ignored-flags.js';

export const IGNORED_PERF_ANALYZER_FLAGS: readonly IgnoredFlag[] = [
  { flag: '-a, --async', why: 'gebe perf\'s clients are asynchronous: --concurrency requests stay in flight' },
  { flag: '--sync', why: 'gebe perf keeps --concurrency requests in flight asynchronously; the server sees the same load' },
  { flag: '--max-threads', arg: '<value>', why: 'gebe perf\'s client threads are --client-threads' },
  { flag: '-v', why: 'gebe perf reports each setting on stderr as it ends; --profile-export-file keeps every request' },
  { flag: '-z', why: 'gebe perf sends zeros unless --input-data says otherwise (perf_analyzer\'s default is random)' },
  { flag: '--binary-search', why: 'gebe perf measures every level of the range; its summary names the best one under --latency-threshold' },
  { flag: '--collect-metrics', why: 'perf_analyzer reads GPU metrics; gebe serves no GPU' },
  { flag: '--metrics-url', arg: '<value>', why: 'perf_analyzer reads GPU metrics; gebe serves no GPU' },
  { flag: '--metrics-interval', arg: '<value>', why: 'perf_analyzer reads GPU metrics; gebe serves no GPU' },
  { flag: '--serial-sequences', why: 'gebe perf runs sequences at --concurrency only, one virtual user a sequence with one request live at a time: always serial' },
  { flag: '--num-of-sequences', arg: '<value>', why: 'gebe perf runs sequences at --concurrency only (one a virtual user); perf_analyzer too ignores it without --request-rate-range' },
  { flag: '--service-kind', arg: '<value>', why: 'gebe perf measures a KServe v2 server (triton) with -u, or the model in process' },
];
