import { ConfigError, loadConfig } from '../../common/config';

describe('DATABASE_URL', () => {
  it('takes a postgres URL, and is optional', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://dds@db.example:5432/history' }).DATABASE_URL).toBe(
      'postgres://dds@db.example:5432/history',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://db.example/history' }).DATABASE_URL).toBe('postgresql://db.example/history');
    expect(loadConfig({}).DATABASE_URL).toBeUndefined();
  });

  it.each(['redis://127.0.0.1:6379', 'not a url', ''])('refuses %j with a message naming DATABASE_URL', (value) => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/DATABASE_URL: /);
  });
});
