/**
 * The repository config file, `gebe.config.json`: found by walking up from the validated path to
 * the file-system root (the first one found wins, as ESLint's flat config and buf.yaml do — no
 * cascading), read as JSON (no code runs, no new parser), and checked field by field so every
 * mistake names the file, line and key. See docs/ci.md for the format and why JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../../errors.js';
import type { RuleSetting } from '../severity.js';
import { closest } from '../helpers.js';

export const CONFIG_FILE_NAME = 'gebe.config.json';
/** A config file is a few hundred bytes; anything this large is not one. */
const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

export interface OverrideBlock {
  /** Globs relative to the config file's directory. */
  files: string[];
  rules: Map<string, RuleSetting>;
  againstRules: Map<string, RuleSetting>;
}

export interface RepositoryConfig {
  /** Absolute path of the file. */
  file: string;
  dir: string;
  rules: Map<string, RuleSetting>;
  againstRules: Map<string, RuleSetting>;
  ignores: string[];
  strict?: boolean;
  maxWarnings?: number;
  against?: string;
  overrides: OverrideBlock[];
}

const TOP_KEYS = ['$schema', 'rules', 'againstRules', 'ignores', 'strict', 'maxWarnings', 'against', 'overrides'];
const OVERRIDE_KEYS = ['files', 'rules', 'againstRules'];
const SETTINGS = ['off', 'info', 'warning', 'error'];

/** The nearest gebe.config.json at or above `start` (a file or directory), or undefined. */
export function findConfigFile(start: string): string | undefined {
  let dir = path.resolve(start);
  try {
    if (!fs.statSync(dir).isDirectory()) dir = path.dirname(dir);
  } catch {
    dir = path.dirname(dir);
  }
  for (;;) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function lineOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The line where a key is first written, for messages (JSON.parse keeps no positions). */
function keyLine(text: string, key: string): number {
  const at = text.indexOf(JSON.stringify(key));
  return at < 0 ? 1 : lineOf(text, at).line;
}

/** Reads and checks a config file against the rule ids (lint rules, breaking rules). */
export function readConfigFile(file: string, lintIds: readonly string[], breakingIds: readonly string[], display = file): RepositoryConfig {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_CONFIG_FILE_BYTES) throw new UsageError(`${display} is ${size} bytes, too large for a gebe config file`, 'a gebe.config.json holds rule settings: a few hundred bytes');
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${display}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    const where = pos ? lineOf(text, Number(pos[1])) : { line: 1, column: 1 };
    throw new UsageError(`${display}:${where.line}:${where.column}: not valid JSON (${message})`, 'gebe.config.json is plain JSON: no comments, no trailing commas');
  }
  const fail = (key: string, what: string, hint?: string): never => {
    throw new UsageError(`${display}:${keyLine(text, key)}: ${what}`, hint ?? 'see docs/ci.md for the gebe.config.json format');
  };
  const unknownKeys = (o: Record<string, unknown>, allowed: string[]) => {
    for (const key of Object.keys(o)) {
      if (allowed.includes(key)) continue;
      const guess = closest(key, allowed);
      fail(key, `unknown key "${key}"`, guess ? `did you mean "${guess}"?` : `the keys are ${allowed.join(', ')}`);
    }
  };
  const settings = (key: string, value: unknown, ids: readonly string[]): Map<string, RuleSetting> => {
    const out = new Map<string, RuleSetting>();
    if (value === undefined) return out;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(key, `"${key}" must be an object of RULE_ID: "off" | "info" | "warning" | "error"`);
    for (const [id, level] of Object.entries(value as Record<string, unknown>)) {
      if (!ids.includes(id) && !(key !== 'againstRules' && id.startsWith('SYNTAX_'))) {
        const guess = closest(id, [...ids]);
        fail(id, `"${key}" names unknown rule ${id}`, guess ? `did you mean ${guess}?` : 'see docs/rules/ for the rule ids');
      }
      if (typeof level !== 'string' || !SETTINGS.includes(level)) fail(id, `${key}.${id} must be "off", "info", "warning" or "error", not ${JSON.stringify(level)}`);
      out.set(id, level as RuleSetting);
    }
    return out;
  };
  const globs = (key: string, value: unknown): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((g) => typeof g !== 'string' || g === '')) fail(key, `"${key}" must be an array of non-empty glob strings`);
    return value as string[];
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('', 'the config must be a JSON object');
  const obj = raw as Record<string, unknown>;
  unknownKeys(obj, TOP_KEYS);
  if (obj.strict !== undefined && typeof obj.strict !== 'boolean') fail('strict', '"strict" must be true or false');
  if (obj.maxWarnings !== undefined && !(Number.isInteger(obj.maxWarnings) && (obj.maxWarnings as number) >= 0)) fail('maxWarnings', '"maxWarnings" must be a non-negative integer');
  if (obj.against !== undefined && (typeof obj.against !== 'string' || obj.against === '')) fail('against', '"against" must be a git ref, a directory or a tarball, as a string');
  const overrides: OverrideBlock[] = [];
  if (obj.overrides !== undefined) {
    if (!Array.isArray(obj.overrides)) fail('overrides', '"overrides" must be an array of { "files": [globs], "rules": {...}, "againstRules": {...} }');
    for (const block of obj.overrides as unknown[]) {
      if (typeof block !== 'object' || block === null || Array.isArray(block)) fail('overrides', 'each entry of "overrides" must be an object');
      const b = block as Record<string, unknown>;
      unknownKeys(b, OVERRIDE_KEYS);
      const files = globs('files', b.files);
      if (files.length === 0) fail('overrides', 'each entry of "overrides" needs "files": a non-empty array of globs');
      overrides.push({ files, rules: settings('rules', b.rules, lintIds), againstRules: settings('againstRules', b.againstRules, breakingIds) });
    }
  }
  return {
    file,
    dir: path.dirname(file),
    rules: settings('rules', obj.rules, lintIds),
    againstRules: settings('againstRules', obj.againstRules, breakingIds),
    ignores: globs('ignores', obj.ignores),
    strict: obj.strict as boolean | undefined,
    maxWarnings: obj.maxWarnings as number | undefined,
    against: obj.against as string | undefined,
    overrides,
  };
}
