/**
 * `work`, or a rejection with `late()` once `ms` have passed (the work itself goes on). The timer
 * is cleared as soon as either side settles, so a deadline never keeps a stopping process alive.
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  late: () => Error = () => new Error(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
