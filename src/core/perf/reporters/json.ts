/** --json: the report data itself, the same that every other reporter is built from. */
import type { PerfReport } from '../report.js';

export function formatJson(report: PerfReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
