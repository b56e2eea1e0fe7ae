import { z } from 'zod';
import { hashSecret, newSecret } from '../common/credentials';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';

/** What a firmware download token lets its holder fetch: one image, for one device of one job. */
export interface OtaGrant {
  firmwareId: string;
  deviceId: string;
  jobId: string;
}

const grantSchema = z.object({ firmwareId: z.string(), deviceId: z.string(), jobId: z.string() });

/**
 * Device-scoped, expiring firmware download tokens (docs/jobs.md, "Downloads"): the token is
 * random and only its SHA-256 is stored, with the grant, expiring after the job's TTL; a leaked
 * Redis dump holds no usable token.
 */
export function createOtaTokens(redis: Redis) {
  return {
    /** A new token for `grant`, valid for `ttlSeconds`. */
    async mint(grant: OtaGrant, ttlSeconds: number): Promise<string> {
      const token = newSecret('ota_', 32);
      await redis.set(keys.otaToken(hashSecret(token)), JSON.stringify(grant), 'EX', ttlSeconds);
      return token;
    },

    /** The grant of a token still valid, else null. */
    async grantOf(token: string): Promise<OtaGrant | null> {
      const raw = await redis.get(keys.otaToken(hashSecret(token)));
      const parsed = raw ? grantSchema.safeParse(JSON.parse(raw)) : null;
      return parsed?.success ? parsed.data : null;
    },
  };
}

export type OtaTokens = ReturnType<typeof createOtaTokens>;
