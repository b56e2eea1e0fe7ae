/**
 * Adding a member is one bounded step whatever the project holds (issue 35, finding 6): the new
 * member starts with the project's newest 10,000 notifications unread (the bound of every
 * notification read, DESIGN §11), not a copy of the whole list.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../../common/redis-keys';
import { NEW_MEMBER_UNREAD_MAX } from '../../store/members';
import { addMember, createProject, registerUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

test('a new member starts with the newest 10,000 of the project notifications unread', async () => {
  const owner = await registerUser(stack.request);
  const member = await registerUser(stack.request);
  const project = await createProject(stack.request, owner);
  // The project's index as notification creates leave it (scored by createdAt), 5 more than the bound.
  const total = NEW_MEMBER_UNREAD_MAX + 5;
  const ids = Array.from({ length: total }, () => randomUUID());
  const entries = ids.flatMap((id, i) => [1_700_000_000_000 + i, id]);
  await stack.redis.zadd(keys.projectNotifications(project.id), ...entries);

  await addMember(stack.request, owner, project.id, member, 'viewer');

  const unread = keys.projectMemberUnreadNotifications(project.id, member.id);
  expect(NEW_MEMBER_UNREAD_MAX).toBe(10_000);
  expect(await stack.redis.zcard(unread)).toBe(NEW_MEMBER_UNREAD_MAX);
  // The newest ones, with their scores (a read orders by them).
  expect(await stack.redis.zrange(unread, '0', '0', 'WITHSCORES')).toEqual([ids[5], String(1_700_000_000_005)]);
  expect(await stack.redis.zrange(unread, '-1', '-1')).toEqual([ids[total - 1]]);
});
