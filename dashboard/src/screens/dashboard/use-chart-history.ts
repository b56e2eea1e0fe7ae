import { useEffect, useMemo } from 'react';
import { api } from '../../api/client';
import type { DeviceWidget } from '../../api/types';
import { widgetPin } from '../../pins/widget-pin';
import { seedPinSeries } from '../../realtime/live-values';

const CHART_TYPES = new Set(['GRAPH', 'SPARKLINE', 'BAR_CHART']);
const HOUR_MS = 3_600_000;

/**
 * Chart widgets open with their pin's last hour of stored points, then grow with live updates.
 * The data API reads every pin by name (V3, D0, A15), so D and A charts are seeded like V ones.
 */
export function useChartHistory(widgets: readonly DeviceWidget[] | undefined, epoch: number): void {
  const pins = useMemo(() => {
    const keys = (widgets ?? []).filter((w) => CHART_TYPES.has(w.type)).map((w) => `${w.deviceId}|${widgetPin(w)}`);
    return [...new Set(keys)].sort().join(',');
  }, [widgets]);
  useEffect(() => {
    if (!pins) return;
    const to = new Date();
    const from = new Date(to.getTime() - HOUR_MS);
    for (const key of pins.split(',')) {
      const [deviceId, pin] = key.split('|') as [string, string];
      api.history(deviceId, pin, { from: from.toISOString(), to: to.toISOString(), aggregate: 'raw', limit: 200 }).then(
        (h) =>
          seedPinSeries(
            deviceId,
            pin,
            h.points.map((p) => ({ value: String(p.value), at: p.timestamp })),
          ),
        () => undefined,
      );
    }
  }, [pins, epoch]);
}
