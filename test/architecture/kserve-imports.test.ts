/**
 * src/core/kserve is the protocol code shared by the server and the clients: nothing it reaches,
 * directly or through what it imports, may be a command, perf or the server, and what it reaches
 * holds no import cycle. The graph is read from the sources (static and dynamic relative imports).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');
const KSERVE = path.join(SRC, 'core/kserve');
const FORBIDDEN = ['commands', 'core/perf', 'core/server', 'cli.ts'].map((p) => path.join(SRC, p));

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The .ts files a source imports (relative specifiers only; packages are not ours). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

function graphFrom(roots: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const todo = [...roots];
  for (let f = todo.pop(); f; f = todo.pop()) {
    if (graph.has(f)) continue;
    const deps = importsOf(f);
    graph.set(f, deps);
    todo.push(...deps.filter((d) => fs.existsSync(d)));
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') found.push(stack.slice(stack.indexOf(d)).concat(d));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

const rel = (f: string) => path.relative(SRC, f);

describe('src/core/kserve imports', () => {
  const graph = graphFrom(filesUnder(KSERVE));

  it('reads a real graph (the client layer and the codecs are in it)', () => {
    expect([...graph.keys()].map(rel)).toEqual(expect.arrayContaining(['core/kserve/client/grpc.ts', 'core/kserve/codec/grpc-infer.ts', 'core/kserve/datatypes.ts']));
  });

  it('never reaches commands, perf or the server', () => {
    const upward = [...graph].flatMap(([f, deps]) => deps.filter((d) => FORBIDDEN.some((x) => d === x || d.startsWith(x + path.sep))).map((d) => `${rel(f)} → ${rel(d)}`));
    expect(upward).toEqual([]);
  });

  it('has no import cycle in what it reaches', () => {
    expect(cycles(graph).map((c) => c.map(rel).join(' → '))).toEqual([]);
  });

  it('the checker sees a cycle and an upward import when there is one', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['a']]]))).toEqual([['a', 'b', 'a']]);
    const perf = graphFrom([path.join(SRC, 'core/perf/http-target.ts')]);
    expect([...perf.keys()].some((f) => f.startsWith(path.join(SRC, 'core/perf')))).toBe(true);
  });
});
