import { join } from 'node:path';
import { importCycles, importGraph, type ImportGraph } from '../helpers/import-graph';

const ROOT = join(__dirname, '..', '..');
const SOURCES = ['common', 'store', 'activities', 'workflows', 'workers', 'gateway', 'scripts', 'bench', 'test'];

describe('imports', () => {
  it('form no cycle anywhere in the sources', () => {
    const graph = importGraph(ROOT, SOURCES);
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('gateway/ingest/ingest.ts')).toContain('store/errors.ts');
    expect(importCycles(graph)).toEqual([]);
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
