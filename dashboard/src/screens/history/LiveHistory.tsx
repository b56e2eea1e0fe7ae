import { useMemo } from 'react';
import { usePinSeries } from '../../realtime/live-values';
import { Card } from '../../ui/common';
import { LineChart } from '../../ui/LineChart';

/**
 * A D or A pin: the data API reads stored history of V pins only, so this shows the pin's latest
 * value and every value that arrives while the page is open.
 */
export function LiveHistory({ deviceId, pin }: { deviceId: string; pin: string }) {
  const series = usePinSeries(deviceId, pin);
  const points = useMemo(() => (series ?? []).filter((p) => Number.isFinite(Number(p.value))), [series]);
  const xs = useMemo(() => points.map((p) => Date.parse(p.at) / 1000), [points]);
  const ys = useMemo(() => points.map((p) => Number(p.value)), [points]);
  return (
    <Card title={`${points.length} value${points.length === 1 ? '' : 's'} since this page opened`}>
      <p className="muted" data-testid="live-history-note">
        Stored history is read for V pins only for now; {pin} shows its latest value and the values arriving live.
      </p>
      <LineChart xs={xs} ys={ys} height={320} />
      {points.length === 0 && <p className="empty">No value on {pin} yet.</p>}
    </Card>
  );
}
