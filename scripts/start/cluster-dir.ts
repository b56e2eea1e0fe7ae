import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, rmdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The home directory of the `postgres` OS user (Debian: /var/lib/postgresql). */
function postgresHome(): string {
  const home = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim().split(':')[5];
  if (!home) throw new Error('the postgres OS user has no home directory; install PostgreSQL (npm run setup)');
  return home;
}

/**
 * Where `npm start` keeps its PostgreSQL cluster, as a path without symlinks (the server is
 * given it, so it never passes through the checkout), and whether data/pg links there:
 * - data/pg when it holds a cluster, or the cluster data/pg links to;
 * - else, as root: ~postgres/dds/<hash of the data dir>/pg, with data/pg a symlink to it. As root
 *   the server runs as `postgres` (initdb and postgres refuse root), which cannot enter a private
 *   checkout (/root/..., a `mktemp -d`); this leaves the permissions of the checkout's parents
 *   alone. An empty data/pg (an initdb refused there) is replaced by the link;
 * - else data/pg.
 */
export function clusterDir(dataDir: string): { dir: string; linked: boolean } {
  const link = join(dataDir, 'pg');
  const found = lstatSync(link, { throwIfNoEntry: false });
  if (found?.isSymbolicLink()) return { dir: resolve(dataDir, readlinkSync(link)), linked: true };
  if (process.getuid?.() !== 0 || existsSync(join(link, 'PG_VERSION'))) return { dir: join(realpathSync(dataDir), 'pg'), linked: false };
  if (found) rmdirSync(link);
  const parent = join(postgresHome(), 'dds');
  mkdirSync(parent, { recursive: true, mode: 0o711 });
  const dir = join(parent, createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16), 'pg');
  symlinkSync(dir, link);
  return { dir, linked: true };
}
