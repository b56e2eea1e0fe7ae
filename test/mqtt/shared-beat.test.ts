import { sharedBeat } from '../../gateway/mqtt/shared-beat';

/** Records, in order, when each call's wait ended. */
function recorder() {
  const order: string[] = [];
  const wait = (beat: { next(): Promise<void> }, name: string) => beat.next().then(() => void order.push(name));
  return { order, wait };
}

describe('sharedBeat: values started together', () => {
  afterEach(() => jest.useRealTimers());

  it('lets every call made within `ms` of the first through together, once `ms` has passed', async () => {
    jest.useFakeTimers();
    const beat = sharedBeat(5);
    const { order, wait } = recorder();
    const first = [wait(beat, 'a'), wait(beat, 'b')];
    await jest.advanceTimersByTimeAsync(4);
    first.push(wait(beat, 'c'));
    await jest.advanceTimersByTimeAsync(0);
    expect(order).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all(first);
    expect(order).toEqual(['a', 'b', 'c']);
    // The next call waits for a beat of its own.
    const late = wait(beat, 'd');
    await jest.advanceTimersByTimeAsync(4);
    expect(order).toEqual(['a', 'b', 'c']);
    await jest.advanceTimersByTimeAsync(1);
    await late;
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('with ms 0 lets each call through at once', async () => {
    const beat = sharedBeat(0);
    await expect(beat.next()).resolves.toBeUndefined();
  });
});
