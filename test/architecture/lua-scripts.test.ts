import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LUA = join(ROOT, 'store', 'lua');
/** The production sources: what ships or runs against the service (the tests of store/ itself may reach into it). */
const SOURCES = ['common', 'store', 'activities', 'workflows', 'workers', 'gateway', 'scripts', 'bench'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const sources = SOURCES.flatMap((dir) => tsFiles(join(ROOT, dir))).map((path) => ({
  file: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

/** The name of every `luaScript('name')` call in the production sources. */
function scriptsLoaded(): string[] {
  const names = sources.flatMap(({ text }) => [...text.matchAll(/luaScript\('([a-z0-9-]+)'\)/g)].map((m) => m[1] as string));
  return [...new Set(names)].sort();
}

/** The files (relative to the root) a source names in `from '…'` or `import('…')`, type-only imports included. */
function importedFiles(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\(\s*)['"](\.[^'"]+)['"]/g)].map((m) => m[1] as string);
  return specifiers.map((s) => relative(ROOT, resolve(dirname(join(ROOT, file)), s)));
}

describe('Redis scripts', () => {
  const files = readdirSync(LUA).filter((f) => f.endsWith('.lua'));

  it('are .lua files named with their key count (or -n), each loaded by some store module', () => {
    expect(files.length).toBeGreaterThan(15);
    for (const file of files) expect(file).toMatch(/^[a-z-]+-(\d+|n)\.lua$/);
    expect(scriptsLoaded()).toEqual(files.map((f) => f.replace(/\.lua$/, '')).sort());
  });

  it('use only KEYS up to the count in their name', () => {
    for (const file of files.filter((f) => !f.endsWith('-n.lua'))) {
      const count = Number(/-(\d+)\.lua$/.exec(file)?.[1]);
      const used = [...readFileSync(join(LUA, file), 'utf8').matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect({ file, highest: Math.max(0, ...used) }).toEqual({ file, highest: count });
    }
  });

  it('are reached only through store/: no file outside it imports store/lua/', () => {
    const outside = sources.filter(({ file }) => !file.startsWith('store/'));
    expect(outside.length).toBeGreaterThan(100);
    const offenders = outside.flatMap(({ file, text }) =>
      importedFiles(file, text)
        .filter((to) => to.startsWith('store/lua/'))
        .map((to) => `${file} -> ${to}`),
    );
    expect(offenders).toEqual([]);
  });

  it('live only in .lua files: no TypeScript source holds Lua (redis.call) or sends a script but the loader', () => {
    // A script written inline calls redis.call / redis.pcall; one sent past the loader calls eval or evalsha.
    const inline = sources.filter(({ text }) => /\bredis\.p?call\(/.test(text)).map(({ file }) => file);
    const sent = sources
      .filter(({ file, text }) => file !== 'store/lua/load.ts' && /\.(eval|evalsha|defineCommand)\(/.test(text))
      .map(({ file }) => file);
    expect({ inline, sent }).toEqual({ inline: [], sent: [] });
  });
});
