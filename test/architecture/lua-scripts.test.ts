import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LUA = join(ROOT, 'store', 'lua');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The name of every `luaScript('name')` call in the production sources. */
function scriptsLoaded(): string[] {
  const names = ['common', 'store', 'activities', 'gateway', 'workers']
    .flatMap((dir) => tsFiles(join(ROOT, dir)))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/luaScript\('([a-z0-9-]+)'\)/g)].map((m) => m[1] as string));
  return [...new Set(names)].sort();
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
});
