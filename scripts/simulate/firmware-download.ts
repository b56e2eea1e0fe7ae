import { createHash } from 'node:crypto';

/** The image an offer names: its length and SHA-256 (hex), which the download must match. */
export interface ExpectedImage {
  size: number;
  sha256: string;
}

/** Quarters of the download reported while it runs (the 0 % report is the caller's). */
const PROGRESS_STEPS = [25, 50, 75];

/**
 * Downloads an OTA image with a plain GET (the device-scoped token is in `url`, docs/jobs.md) as a
 * device would: streamed and hashed as it arrives, stopped as soon as it runs past `expected.size`
 * bytes. Calls `onProgress` as it passes each quarter. Resolves with null when the length and SHA-256
 * match, else with the error to report (≤ 200 characters); throws only when `signal` aborts it.
 */
export async function downloadImage(
  url: string,
  expected: ExpectedImage,
  onProgress: (percent: number) => void,
  signal: AbortSignal,
): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    if (signal.aborted) throw err;
    return `download failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return `download failed: HTTP ${res.status}`;
  }
  const hash = createHash('sha256');
  let received = 0;
  let step = 0;
  try {
    for await (const chunk of res.body) {
      received += chunk.length;
      if (received > expected.size) {
        await res.body.cancel().catch(() => undefined);
        return `size mismatch: more than the offered ${expected.size} bytes`;
      }
      hash.update(chunk);
      while (step < PROGRESS_STEPS.length && (received / expected.size) * 100 >= (PROGRESS_STEPS[step] as number)) {
        onProgress(PROGRESS_STEPS[step++] as number);
      }
    }
  } catch (err) {
    if (signal.aborted) throw err;
    return `download broke off after ${received} bytes: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200);
  }
  if (received !== expected.size) return `size mismatch: ${received} bytes, offered ${expected.size}`;
  const sha256 = hash.digest('hex');
  return sha256 === expected.sha256 ? null : `sha256 mismatch: got ${sha256.slice(0, 12)}…, offered ${expected.sha256.slice(0, 12)}…`;
}
