/**
 * The linter's entry points for commands: scan a path, lint it, format the findings.
 * `gebe validate` uses them; so can any command that wants to check a repository first.
 */
export { lintTargets, sortAndDedupe, type LintOptions, type LintResult, type LintedConfig } from './runner.js';
export { RULES, findRule } from './registry.js';
export { parseRuleOverrides, type RuleOverrides, type RuleSetting } from './severity.js';
export { FORMATTERS, summarize, type FormatName, type FormatOptions, type LintReport, type Summary } from './formatters/index.js';
export { docsUrl, type Rule, type RuleMeta } from './rule.js';
