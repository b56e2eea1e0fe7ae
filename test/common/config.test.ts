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

describe('TRUST_PROXY', () => {
  it('is a hop count, default 0; the old `false` reads as 0', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(0);
  });

  // `true` trusted every hop: the client's own X-Forwarded-For chose the address the throttles count.
  it('refuses the old `true` at start, naming the variable and saying what to set', () => {
    expect(refusal({ TRUST_PROXY: 'true' })?.problems).toEqual([expect.stringMatching(/^TRUST_PROXY: a hop count now: .*1 behind one/)]);
  });

  it.each(['yes', '-1', '1.5', ''])('refuses %j', (value) => {
    expect(refusal({ TRUST_PROXY: value })?.problems).toEqual([expect.stringMatching(/^TRUST_PROXY: a hop count/)]);
  });
});

describe('QUOTA_<PLAN>_MANAGEMENT_PER_MIN', () => {
  it("defaults to DESIGN §11's table and takes a whole number (0: no limit)", () => {
    const config = loadConfig({ QUOTA_PRO_MANAGEMENT_PER_MIN: '0' });
    expect([
      config.QUOTA_FREE_MANAGEMENT_PER_MIN,
      config.QUOTA_PRO_MANAGEMENT_PER_MIN,
      config.QUOTA_PRO_PLUS_MANAGEMENT_PER_MIN,
      config.QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN,
    ]).toEqual([600, 0, 3000, 6000]);
    expect(refusal({ QUOTA_FREE_MANAGEMENT_PER_MIN: '-1' })?.problems).toEqual([expect.stringMatching(/^QUOTA_FREE_MANAGEMENT_PER_MIN: /)]);
  });
});
