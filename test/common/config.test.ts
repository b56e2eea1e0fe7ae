import { ConfigError, loadConfig } from '../../common/config';

/** The ConfigError loadConfig throws for `env`, or undefined when it starts. */
function refusal(env: Record<string, string>): ConfigError | undefined {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  return undefined;
}

describe('PASSWORD_HASH_COST', () => {
  it('takes a power of two, default 16384', () => {
    expect(loadConfig({}).PASSWORD_HASH_COST).toBe(16384);
    expect(loadConfig({ PASSWORD_HASH_COST: '1024' }).PASSWORD_HASH_COST).toBe(1024);
    expect(loadConfig({ PASSWORD_HASH_COST: '131072' }).PASSWORD_HASH_COST).toBe(131072);
  });

  // Not a power of two, node's scrypt refuses every hash: each register and login answered 500.
  it.each(['16383', '20000', '3000'])('refuses %s at start, naming the variable', (value) => {
    const error = refusal({ PASSWORD_HASH_COST: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.problems).toEqual([expect.stringMatching(/^PASSWORD_HASH_COST: .*power of two/)]);
  });
});
