import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from '../../common/redis';
import { isStoreErrorCode, StoreError } from '../errors';

/**
 * The one way a Lua script reaches Redis. Each script is a file in this folder named with its key
 * count (`store-point-12.lua`: 12 KEYS), or `-n` when the keys it touches are not fixed by the file
 * (the count varies with the call, or keys are derived inside Redis from data it reads).
 *
 * A script runs by its SHA (EVALSHA) and is sent whole (EVAL) only when Redis does not know it
 * yet (NOSCRIPT: first use, or after a restart), so the hot path sends the body once. Not ioredis
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
  return createHash('sha1').update(source(`${name}.lua`)).digest('hex');
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
    try {
      try {
        return await redis.evalsha(sha, keyList.length, ...keyList, ...args);
      } catch (err) {
        if (!isNoScript(err)) throw err;
        return await redis.eval(lua, keyList.length, ...keyList, ...args);
      }
    } catch (err) {
      throw toStoreError(err);
    }
  };
}
