import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, type Config } from './config';

/** The key that seals readable credentials: CREDENTIAL_KEY, required outside a laptop. */
export function requireCredentialKey(config: Config): string {
  if (!config.CREDENTIAL_KEY) throw new ConfigError(['CREDENTIAL_KEY: required (64 hex characters, e.g. `openssl rand -hex 32`)']);
  return config.CREDENTIAL_KEY;
}

/** For `npm start` on a laptop: CREDENTIAL_KEY if set, else a key kept in a file beside the local data. */
export function localCredentialKey(config: Config, file: string): string {
  if (config.CREDENTIAL_KEY) return config.CREDENTIAL_KEY;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('hex');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
