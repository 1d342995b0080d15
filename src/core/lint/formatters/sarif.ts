/**
 * SARIF 2.1.0 as GitHub code scanning accepts it: one run, tool.driver.rules with help links,
 * results with physical locations relative to the checkout.
 */
import { findRule } from '../registry.js';
import { docsUrl } from '../rule.js';
import type { Formatter } from './types.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

export const formatSarif: Formatter = (report, options) => {
  const ruleIds = [...new Set(report.diagnostics.map((d) => d.ruleId))].sort();
  const rules = ruleIds.map((id) => {
    const rule = findRule(id);
    const description = rule?.purpose ?? 'Checks that config.pbtxt is valid protobuf text format for Triton\'s ModelConfig.';
    return {
      id,
      name: id,
      shortDescription: { text: description },
      fullDescription: { text: description },
      helpUri: docsUrl(id),
      help: { text: `${description} See ${docsUrl(id)}` },
      defaultConfiguration: { level: LEVEL[rule?.severity ?? 'error'] },
    };
  });
  const results = report.diagnostics.map((d) => ({
    ruleId: d.ruleId,
    ruleIndex: ruleIds.indexOf(d.ruleId),
    level: LEVEL[d.severity],
    message: { text: d.fix ? `${d.message}. Fix: ${d.fix.description}` : d.message },
    locations: [{
      physicalLocation: {
        artifactLocation: { uri: d.file.split('\\').join('/').replace(/^\.\//, '') },
        region: { startLine: d.line, startColumn: d.column, endLine: d.endLine, endColumn: Math.max(d.endColumn, d.endLine === d.line ? d.column + 1 : 1) },
      },
    }],
  }));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'gebe', semanticVersion: options.version, informationUri: 'https://github.com/gebe-dev/gebe', rules } },
      results,
    }],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
};
