import { keys } from '../../common/redis-keys';
import { shardKeyName } from '../../scripts/migrate/shard-key-name';

describe('the shard key migration (scripts/migrate/shard-keys.ts)', () => {
  it('gives each owned key of the old scheme its shard-tagged name, the one the stores now read', () => {
    const id = '5f0c8d0e-1111-4222-8333-944445555666';
    const user = '7a7b7c7d-1111-4222-8333-944445555666';
    expect(shardKeyName(`device:${id}`)).toBe(keys.device(id));
    expect(shardKeyName(`device:${id}:pins`)).toBe(keys.devicePins(id));
    expect(shardKeyName(`device:${id}:rule-state`)).toBe(keys.deviceRuleState(id));
    expect(shardKeyName(`project:${id}:notifications:unread:${user}`)).toBe(keys.projectMemberUnreadNotifications(id, user));
    expect(shardKeyName(`user:${user}:projects`)).toBe(keys.userProjects(user));
    expect(shardKeyName(`apikey:${id}`)).toBe(keys.apiKey(id));
    expect(shardKeyName(`rule:${id}`)).toBe(keys.rule(id));
    expect(shardKeyName(`command:${id}`)).toBe(keys.command(id));
  });

  it('leaves lookups by hash, email or login subject, and keys already migrated, alone', () => {
    expect(shardKeyName('device:dt:abc')).toBeNull();
    expect(shardKeyName('device:iot:abc')).toBeNull();
    expect(shardKeyName('user:email:a@b.c')).toBeNull();
    expect(shardKeyName('apikey:hash:abc')).toBeNull();
    expect(shardKeyName('session:abc')).toBeNull();
    expect(shardKeyName(keys.device('x'))).toBeNull();
  });
});
