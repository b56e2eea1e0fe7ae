import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';

/** The passwords of the dynamic security plugin's admin and of the service account. */
export const brokerPasswords = z.object({ dynsec: z.string().min(16), service: z.string().min(16) });

export type BrokerPasswords = z.infer<typeof brokerPasswords>;

const randomPassword = (): string => randomBytes(18).toString('base64url');

export function newPasswords(): BrokerPasswords {
  return { dynsec: randomPassword(), service: randomPassword() };
}

/**
 * The passwords kept in `file` (mode 0600), made and written there the first time, so a broker
 * whose plugin JSON survives a restart (npm start's) is administered with the same accounts.
 * A plugin JSON without the file holds accounts nobody knows the password of: refused.
 */
export async function keptPasswords(file: string, dynsecFile: string): Promise<BrokerPasswords> {
  if (existsSync(file)) {
    const parsed = brokerPasswords.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file} is not a broker password file; remove it and ${dynsecFile} to start the broker afresh`);
    return parsed.data;
  }
  if (existsSync(dynsecFile))
    throw new Error(`${dynsecFile} exists without ${file}; remove it to start the broker afresh (its accounts are lost)`);
  const passwords = newPasswords();
  await writeFile(file, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return passwords;
}
