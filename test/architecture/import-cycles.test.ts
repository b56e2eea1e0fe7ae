import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importCycles, resolveImport, type ImportGraph } from '../helpers/import-graph';

const ROOT = join(__dirname, '..', '..');
const SOURCES = ['common', 'store', 'activities', 'workflows', 'workers', 'gateway', 'scripts', 'bench', 'test'];

/**
 * Every specifier a file names: imports and re-exports, `import type` and `export type` included,
 * and `import('…')` types. A cycle of type imports cannot fail at run time, but it ties two layers'
 * contracts together (a contract that belongs in neither), so it counts as a cycle here.
 */
const SPECIFIERS = [
  /^\s*import\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm,
  /^\s*export\s+[^'";]*?\sfrom\s+['"]([^'"]+)['"]/gm,
  /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g,
];

const specifiersOf = (source: string): string[] => [
  ...new Set(SPECIFIERS.flatMap((re) => [...source.matchAll(re)].map((m) => m[1] as string))),
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The graph of every .ts file under SOURCES, type imports included (paths relative to ROOT). */
function fullImportGraph(): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of SOURCES.flatMap((dir) => tsFiles(join(ROOT, dir)))) {
    const targets = specifiersOf(readFileSync(file, 'utf8'))
      .map((specifier) => resolveImport(file, specifier))
      .filter((p): p is string => p !== null)
      .map((p) => relative(ROOT, p));
    graph.set(relative(ROOT, file), [...new Set(targets)].sort());
  }
  return graph;
}

describe('imports', () => {
  it('form no cycle anywhere in the sources, type imports included', () => {
    const graph = fullImportGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('activities/mirror.ts')).toContain('store/device-mirror.ts');
    expect(graph.get('store/alarms.ts')).toContain('common/twin-activities.ts'); // an `import type`
    expect(importCycles(graph)).toEqual([]);
  });

  it('are read type imports and all', () => {
    const source =
      "import type { A } from './a';\nimport {\n  type B,\n} from './b';\nexport type { C } from './c';\ntype D = import('./d').D;";
    expect(specifiersOf(source)).toEqual(['./a', './b', './c', './d']);
  });

  it('are checked by a cycle finder that does find cycles', () => {
    const graph: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
