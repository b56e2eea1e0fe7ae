import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { NotificationPriority, NotificationRecord } from '../../common/contracts';
import type { RouteDeps } from '../routes/route-deps';

const priorities = ['low', 'normal', 'high'] as const satisfies readonly NotificationPriority[];

/** The notify body of both external interfaces (SPEC §4.6, §4.7, §8). */
export const notifyBody = z.object({
  title: z.string().min(1).max(100).default('Device Notification'),
  message: z.string().min(1).max(500),
  priority: z.enum(priorities).default('normal'),
});

/**
 * A notification sent on behalf of a device: type `device`, in-app channel, in the device's
 * project. It goes to Temporal like every other notification (stored, then delivered). Returns its id.
 */
export async function notifyForDevice(
  notify: RouteDeps['notify'],
  device: { id: string; projectId: string },
  input: z.infer<typeof notifyBody>,
): Promise<string> {
  const record: NotificationRecord = {
    id: randomUUID(),
    projectId: device.projectId,
    deviceId: device.id,
    ruleId: null,
    type: 'device',
    title: input.title,
    message: input.message,
    priority: input.priority,
    channels: ['inApp'],
    read: false,
    createdAt: new Date().toISOString(),
  };
  await notify(record);
  return record.id;
}
