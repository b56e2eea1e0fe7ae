import { z } from 'zod';
import { hashSecret, newSecret } from '../common/credentials';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';

/** How long a verify link works. */
export const VERIFICATION_TTL_S = 24 * 3600;
/** How often one account may ask for a verify email. */
export const VERIFICATION_RESEND_S = 60;

const pending = z.object({ userId: z.string().min(1), email: z.string().min(1) });
export type PendingVerification = z.infer<typeof pending>;

/**
 * One-time email verification tokens (DESIGN §11): only the token's hash is stored, bound to the
 * user and the address it was sent to, and Redis expires it; using it deletes it.
 */
export function createEmailVerificationStore(redis: Redis) {
  return {
    /** A slot to send another verify email; the seconds to wait instead when one went out less than a minute ago. */
    async claimSend(userId: string): Promise<{ allowed: true } | { allowed: false; retryAfterS: number }> {
      const key = keys.emailVerificationSent(userId);
      if ((await redis.set(key, '1', 'EX', VERIFICATION_RESEND_S, 'NX')) === 'OK') return { allowed: true };
      return { allowed: false, retryAfterS: Math.max(1, await redis.ttl(key)) };
    },

    /** A new token for `email` of `userId`. */
    async issue(verification: PendingVerification): Promise<string> {
      const token = newSecret('ev_', 32);
      await redis.set(keys.emailVerification(hashSecret(token)), JSON.stringify(verification), 'EX', VERIFICATION_TTL_S);
      return token;
    },

    /** What the token verifies, once: null when it is unknown, used or expired. */
    async consume(token: string): Promise<PendingVerification | null> {
      const json = await redis.getdel(keys.emailVerification(hashSecret(token)));
      const parsed = json === null ? null : pending.safeParse(JSON.parse(json));
      return parsed?.success ? parsed.data : null;
    },
  };
}

export type EmailVerificationStore = ReturnType<typeof createEmailVerificationStore>;
