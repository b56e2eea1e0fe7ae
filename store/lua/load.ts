import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from '../../common/redis';
import { isStoreErrorCode, StoreError } from '../errors';

/**
 * The one way a Lua script reaches Redis. Each script is a file in this folder named with its key
 * count (`store-point-13.lua`: 12 KEYS), or `-n` when the keys it touches are not fixed by the file
 * (the count varies with the call, or keys are derived inside Redis from data it reads).
 *
 * A script runs by its SHA (EVALSHA) once its connection has run it, and is sent whole (EVAL)
 * until then, so the hot path sends the body once. Sending EVALSHA first and the body on NOSCRIPT
 * would reorder calls: a call issued after some body had landed ran at once, ahead of an earlier
 * call still waiting on its NOSCRIPT (a device's info fields came out older than sent). So a
 * connection's calls go whole until one has come back, again while the connection is not ready
 * (the offline queue), and after each reconnect (a restarted Redis has lost its scripts). Left:
 * with a Redis Cluster the SHAs are known per Cluster, not per master, so the first calls to a
 * master that has not run a script may still retry out of order. Not ioredis
 * `defineCommand`: in ioredis 6.0.0 a command defined on a connection after an auto-pipeline was
 * opened breaks that pipeline (redis/ioredis#1931), and connections are made in places the store
 * does not own, so they cannot all be defined up front.
 *
 * A line `-- #include lib/name.lua` is replaced by that file, so Lua helpers shared by several
 * scripts are written once.
 *
 * A script refuses a call (before writing anything) with `return redis.error_reply('STORE:CODE')`
 * (Redis sends it as `ERR STORE:CODE`);
 * that reply becomes StoreError(CODE) here and nowhere else.
 *
 * The files are read next to this module: from the sources under jest, from dist/store/lua after
 * `npm run build` (scripts/copy-lua.sh copies them there).
 */
const INCLUDE = /^--\s*#include\s+(\S+)\s*$/gm;
const STORE_REPLY = /\bSTORE:([A-Z_]+)\b/;

function source(file: string): string {
  return readFileSync(join(__dirname, file), 'utf8').replace(INCLUDE, (_line, lib: string) => source(lib));
}

export type ScriptRunner = (redis: Redis, keyList: string[], args: (string | number)[]) => Promise<unknown>;

function toStoreError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const code = STORE_REPLY.exec(err.message)?.[1];
  return code !== undefined && isStoreErrorCode(code) ? new StoreError(code) : err;
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.includes('NOSCRIPT');
}

/** The SHA1 Redis knows `store/lua/<name>.lua` by (EVALSHA), its includes resolved. */
export function scriptSha(name: string): string {
  return createHash('sha1')
    .update(source(`${name}.lua`))
    .digest('hex');
}

/** The SHAs each connection (or Cluster) has run since it was last ready. */
const runBy = new WeakMap<Redis, Set<string>>();

function scriptsRunBy(redis: Redis): Set<string> {
  let shas = runBy.get(redis);
  if (!shas) {
    const fresh = new Set<string>();
    redis.on('ready', () => fresh.clear());
    runBy.set(redis, fresh);
    shas = fresh;
  }
  return shas;
}

/** The runner of `store/lua/<name>.lua`; `name` ends in its key count or `-n`. */
export function luaScript(name: string): ScriptRunner {
  const count = /-(\d+|n)$/.exec(name)?.[1];
  if (count === undefined) throw new Error(`Lua script ${name}: the name must end in its key count or -n`);
  const fixedKeys = count === 'n' ? null : Number(count);
  const lua = source(`${name}.lua`);
  const sha = scriptSha(name);
  return async (redis, keyList, args) => {
    if (fixedKeys !== null && keyList.length !== fixedKeys) {
      throw new Error(`Lua script ${name} takes ${fixedKeys} keys, got ${keyList.length}`);
    }
    const run = scriptsRunBy(redis);
    try {
      if (run.has(sha) && redis.status === 'ready') {
        try {
          return await redis.evalsha(sha, keyList.length, ...keyList, ...args);
        } catch (err) {
          if (!isNoScript(err)) throw err;
          run.delete(sha);
        }
      }
      const reply = await redis.eval(lua, keyList.length, ...keyList, ...args);
      run.add(sha);
      return reply;
    } catch (err) {
      throw toStoreError(err);
    }
  };
}
