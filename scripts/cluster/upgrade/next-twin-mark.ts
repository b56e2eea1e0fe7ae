/**
 * What the next build's twin (next-twin.ts) records in the memo of every run it starts, so
 * the harness can tell which build started a run (`temporal workflow describe` shows it too).
 */
export const NEXT_BUILD_PATCH = 'cluster-next-build-memo';
export const NEXT_BUILD_MEMO = { build: 'next' } as const;
