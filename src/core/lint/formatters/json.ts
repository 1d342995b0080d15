/** The stable JSON output for CI tools: version 1, 1-based positions. */
import type { Formatter } from './types.js';

export const formatJson: Formatter = (report) => {
  const diagnostics = report.diagnostics.map((d) => {
    const out: Record<string, unknown> = {
      file: d.file, line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn,
      ruleId: d.ruleId, severity: d.severity, message: d.message,
    };
    if (d.fix) out.fix = d.fix;
    return out;
  });
  const { errors, warnings, infos, models, files } = report.summary;
  return `${JSON.stringify({ version: 1, diagnostics, summary: { errors, warnings, infos, models, files } }, null, 2)}\n`;
};
