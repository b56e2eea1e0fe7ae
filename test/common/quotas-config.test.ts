import { ConfigError, loadConfig } from '../../common/config';
import { quotaOf } from '../../common/quotas';

/** QUOTA_<PLAN>_<RESOURCE> (docs/limits.md "Quotas"): DESIGN §11's defaults, each overridable, 0 = no limit. */
describe('plan quotas from the environment', () => {
  it("defaults to DESIGN §11's table; enterprise has no limit", () => {
    const config = loadConfig({});
    expect(quotaOf(config, 'free', 'devices')).toEqual({ resource: 'devices', limit: 10 });
    expect(quotaOf(config, 'pro', 'apiKeys')).toEqual({ resource: 'apiKeys', limit: 10 });
    expect(quotaOf(config, 'pro_plus', 'widgets')).toEqual({ resource: 'widgets', limit: 5000 });
    expect(quotaOf(config, 'free', 'templates')).toEqual({ resource: 'templates', limit: 5 });
    expect(quotaOf(config, 'enterprise', 'projects')).toEqual({ resource: 'projects', limit: null });
  });

  it('takes an override per plan and resource; 0 means no limit', () => {
    const config = loadConfig({ QUOTA_FREE_DEVICES: '25', QUOTA_PRO_PLUS_API_KEYS: '0', QUOTA_ENTERPRISE_PROJECTS: '1000' });
    expect(quotaOf(config, 'free', 'devices').limit).toBe(25);
    expect(quotaOf(config, 'pro', 'devices').limit).toBe(500);
    expect(quotaOf(config, 'pro_plus', 'apiKeys').limit).toBeNull();
    expect(quotaOf(config, 'enterprise', 'projects').limit).toBe(1000);
  });

  it.each(['-1', '2.5', 'ten'])('refuses %s at start, naming the variable', (value) => {
    let refused: unknown;
    try {
      loadConfig({ QUOTA_FREE_MEMBERS: value });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([expect.stringMatching(/^QUOTA_FREE_MEMBERS: /)]);
  });
});
