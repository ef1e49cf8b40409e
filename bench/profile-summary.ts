// Summarises a V8 CPU profile (node --cpu-prof): self time by package or project directory, and
// the heaviest functions. Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=20]
import fs from 'node:fs';
import path from 'node:path';
import { isMain, root, table } from './lib.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: `node_modules/<package>`, a project directory (server/delivery), `node:` internals, or `(program)`/`(gc)`/`(idle)`. */
function place(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const file = url.replace(/^file:\/\//, '');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (nm) return nm[1]!;
  const rel = path.relative(root, file);
  return rel.startsWith('..') ? file : path.dirname(rel);
}

/** Self time (ms) by place and by function, and the profile's duration. */
export function summarizeProfile(file: string, top = 20, inclusiveTop = 0): { byPlace: Record<string, number>; totalMs: number } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byPlace = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    if (!ms) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = place(url, functionName);
    byPlace.set(where, (byPlace.get(where) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${where}]`;
    byFn.set(name, (byFn.get(name) ?? 0) + ms);
  }
  // Inclusive time per function (itself and what it called), counted once per stack when recursive.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inclusive = new Map<string, number>();
  const fnKey = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${place(url, functionName)}]`;
  };
  const walk = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    let total = selfMs.get(id) ?? 0;
    const key = fnKey(node);
    const outer = !onStack.has(key);
    if (outer) onStack.add(key);
    for (const child of node.children ?? []) total += walk(child, onStack);
    if (outer) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + total);
    }
    return total;
  };
  walk(profile.nodes[0]!.id, new Set());
  for (const k of [...inclusive.keys()]) if (/^\((root|program|idle|garbage collector)\)/.test(k)) inclusive.delete(k);
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => ({ self_ms: Math.round(ms), share: `${((ms / totalMs) * 100).toFixed(1)}%`, where: k }));
  console.log(`\nself time by place (profile of ${Math.round(totalMs)} ms):`);
  table(rows(byPlace));
  console.log(`\nheaviest functions (self time):`);
  table(rows(byFn));
  if (inclusiveTop > 0) {
    console.log(`\nheaviest functions including what they call (project and library code):`);
    const projectOrLib = new Map([...inclusive.entries()].filter(([k]) => !/\[node: internals\]|\[\(native\)\]/.test(k)));
    table(rows(projectOrLib).slice(0, inclusiveTop));
  }
  return { byPlace: Object.fromEntries(byPlace), totalMs };
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  summarizeProfile(file, Number(process.argv[3] ?? 20), Number(process.argv[3] ?? 20));
}
