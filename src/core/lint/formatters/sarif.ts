/**
 * SARIF 2.1.0 as GitHub code scanning accepts it: one run, tool.driver.rules with help links,
 * results with physical locations relative to the checkout.
 */
import { findRule } from '../registry.js';
import { docsUrl } from '../rule.js';
import type { Fix } from '../../diagnostic.js';
import type { Formatter } from './types.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

function uri(file: string): string {
  return file.split('\\').join('/').replace(/^\.\//, '');
}

/** 1-based line and column of a 0-based offset into text. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** A safe fix as SARIF's fix object (only safe fixes: a SARIF consumer may apply it unasked). */
function sarifFix(file: string, fix: Fix, text: string) {
  return {
    description: { text: fix.description },
    artifactChanges: [{
      artifactLocation: { uri: uri(file) },
      replacements: fix.edits.map((e) => {
        const start = position(text, e.start);
        const end = position(text, e.end);
        return {
          deletedRegion: { startLine: start.line, startColumn: start.column, endLine: end.line, endColumn: end.column },
          insertedContent: { text: e.text },
        };
      }),
    }],
  };
}

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
    message: { text: d.fix ? `${d.message.replace(/\.+$/, '')}. Fix: ${d.fix.description}` : d.message },
    locations: [{
      physicalLocation: {
        artifactLocation: { uri: uri(d.file) },
        region: { startLine: d.line, startColumn: d.column, endLine: d.endLine, endColumn: Math.max(d.endColumn, d.endLine === d.line ? d.column + 1 : 1) },
      },
    }],
    ...(d.fix?.safe && d.fix.edits.length > 0 && report.sources.has(d.file) ? { fixes: [sarifFix(d.file, d.fix, report.sources.get(d.file)!)] } : {}),
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
