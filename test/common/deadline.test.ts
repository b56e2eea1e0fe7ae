import { withDeadline } from '../../common/deadline';

const pendingTimers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('work that settles in time gives its result and leaves no timer running', async () => {
  const before = pendingTimers();
  await expect(withDeadline(Promise.resolve('stored'), 60_000)).resolves.toBe('stored');
  await expect(withDeadline(Promise.reject(new Error('refused')), 60_000)).rejects.toThrow('refused');
  expect(pendingTimers()).toBe(before);
});

test("work that is late is refused with the caller's error", async () => {
  const never = new Promise<string>(() => undefined);
  await expect(withDeadline(never, 10, () => new Error('no PUBACK within 10 ms'))).rejects.toThrow('no PUBACK within 10 ms');
  await expect(withDeadline(never, 10)).rejects.toThrow('no answer within 10 ms');
});
