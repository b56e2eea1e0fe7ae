import { z } from 'zod';
import { OTA_REPORT_STATES } from '../../common/jobs';
import type { JobStore } from '../../store/jobs';

/** A device's report on `{root}/{deviceId}/ota/status` (DESIGN §13); anything else is ignored. */
export const otaReportPayload = z
  .object({
    jobId: z.uuid(),
    state: z.enum(OTA_REPORT_STATES),
    progress: z.number().min(0).max(100).optional(),
    error: z.string().max(200).optional(),
  })
  .strict();

/**
 * Hands a device's OTA status report to its job (docs/jobs.md): kept beside the job's devices when
 * the device is one of the job's targets, where the job's next look at its devices reads it. A
 * malformed report, or one naming a job the device is not in, changes nothing.
 */
export async function reportOtaStatus(jobs: Pick<JobStore, 'report'>, deviceId: string, text: string): Promise<boolean> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return false;
  }
  const report = otaReportPayload.safeParse(json);
  return report.success ? jobs.report(deviceId, report.data) : false;
}
