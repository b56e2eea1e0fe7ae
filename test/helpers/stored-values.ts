import type { MqttClient } from 'mqtt';
import type { TestUser } from './fixtures';
import type { Request } from './http';
import { sleep } from './wait';

/** `deviceId:value` of every value a device had acknowledged (1, 2, 3, ... on V1) that history does not hold (yet). */
export async function notYetStored(
  request: Request,
  owner: TestUser,
  devices: Array<{ id: string }>,
  acknowledged: number[][],
): Promise<string[]> {
  const lost: string[] = [];
  await Promise.all(
    devices.map(async (d, i) => {
      const res = await request('GET', `/api/v1/data/${d.id}/1?limit=100000&from=${new Date(Date.now() - 900_000).toISOString()}`, {
        token: owner.token,
      });
      if (res.status !== 200) throw new Error(`history of ${d.id} not read: ${res.status} ${res.text}`);
      const stored = new Set((res.body.data.points as Array<{ value: number }>).map((p) => p.value));
      for (const n of acknowledged[i]!) if (!stored.has(n)) lost.push(`${d.id}:${n}`);
    }),
  );
  return lost;
}

/**
 * Each look reads every device's history (one management request each), every 2 s: the test's
 * owner needs a plan whose management rate takes that (pro's 1,200 a minute: 20 devices).
 *
 * Waits while the count of acknowledged values not yet stored keeps falling (a backlog of
 * thousands on a loaded machine has no fixed deadline), and returns what is still missing once it
 * has stood still for `stallMs`: [] when every value is stored.
 */
export async function missingAfterDrain(check: () => Promise<string[]>, stallMs: number): Promise<string[]> {
  let missing: string[] | null = null;
  let lastProgress = Date.now();
  for (;;) {
    // A look the service refused (a 503 while it drains on a loaded machine) is no progress.
    const now = await check().catch(() => null);
    if (now !== null && (missing === null || now.length < missing.length)) lastProgress = Date.now();
    missing = now ?? missing;
    if ((missing !== null && missing.length === 0) || Date.now() - lastProgress >= stallMs) break;
    await sleep(2000);
  }
  return missing ?? (await check());
}

/**
 * Each client publishes 1, 2, 3, ... on its device's V1 at QoS 1, `gapMs` apart, until `stop()`;
 * a value counts in `acknowledged` once the broker acknowledged it.
 */
export function publishCounting(clients: MqttClient[], devices: Array<{ id: string }>, topicRoot: string, gapMs: number) {
  const acknowledged: number[][] = devices.map(() => []);
  let publishing = true;
  const publishers = devices.map(async (d, i) => {
    for (let n = 1; publishing; n += 1) {
      await clients[i]!.publishAsync(`${topicRoot}/${d.id}/pin/V1`, String(n), { qos: 1 });
      acknowledged[i]!.push(n);
      await sleep(gapMs);
    }
  });
  return {
    acknowledged,
    total: (): number => acknowledged.reduce((sum, a) => sum + a.length, 0),
    async stop(): Promise<void> {
      publishing = false;
      await Promise.all(publishers);
    },
  };
}
