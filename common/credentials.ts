import { createCipheriv, createDecipheriv, hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** A fresh random credential with a prefix, e.g. `dt_…`, `dds_…`, `iot_…`. */
export function newSecret(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/**
 * Lookup hash of a high-entropy credential (tokens, API keys): fast, and useless to whoever reads
 * Redis. Every simple request hashes its token: the one-shot `hash` (Node ≥ 20.12) skips the Hash object.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function scryptAsync(password: string, salt: Buffer, cost: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, 64, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Slow password hash: `scrypt$N$salt$hash`. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost);
  return `scrypt$${cost}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, costText, saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !costText || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64');
  const actual = await scryptAsync(password, Buffer.from(saltText, 'base64'), Number(costText));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Reversible encryption (AES-256-GCM) for a credential the owner must be able to read again
 * (the simple-interface `iot_` token): a Redis dump alone does not reveal it.
 */
export function encryptSecret(plain: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64')).join('.');
}

export function decryptSecret(sealed: string, keyHex: string): string {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64'));
  if (!iv || !tag || !body) throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}
