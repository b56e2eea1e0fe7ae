import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import type { PinLock, TemplatePin, Widget } from '../../api/types';
import { comparePins, pinName } from '../../pins/pin-types';
import { draftName, PinPicker, type PinDraft } from '../../pins/PinPicker';
import { widgetPin } from '../../pins/widget-pin';
import { usePinValue } from '../../realtime/live-values';
import { Link } from '../../router';
import { Card, EmptyRow, ErrorLine, timeAgo, useAction } from '../../ui/common';

const NO_PINS: readonly TemplatePin[] = [];

interface Props {
  deviceId: string;
  /** Pins that had a value: in the device's snapshot or live since. */
  recorded: readonly string[];
  widgets: readonly Widget[];
  locks: readonly PinLock[];
  canEdit: boolean;
  onLockChange: () => void;
  /** The pins the device's template declares: listed with their names even before a value. */
  declared?: readonly TemplatePin[];
}

/** A device's pins, V, D and A: those with a value, bound to a widget, locked, or added here; each live. */
export function PinsCard({ deviceId, recorded, widgets, locks, canEdit, onLockChange, declared = NO_PINS }: Props) {
  const [added, setAdded] = useState<string[]>([]);
  const [draft, setDraft] = useState<PinDraft>({ type: 'V', number: '' });
  const locked = useMemo(() => new Set(locks.map((l) => l.pin.toUpperCase())), [locks]);
  const pins = useMemo(() => {
    const bound = widgets.filter((w) => w.deviceId === deviceId).map(widgetPin);
    const named = declared.map((p) => p.pin.toUpperCase());
    return [...new Set([...recorded, ...bound, ...locked, ...added, ...named])].sort(comparePins);
  }, [recorded, widgets, deviceId, locked, added, declared]);
  const names = useMemo(() => new Map(declared.map((p) => [p.pin.toUpperCase(), p.name])), [declared]);
  const show = () => {
    const name = pinName(draftName(draft));
    if (name) setAdded((a) => [...a, name]);
  };

  return (
    <Card title="Pins">
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th>Pin</th>
              <th>Latest value</th>
              <th>Updated</th>
              <th>Lock</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {pins.map((pin) => (
              <PinRow
                key={pin}
                deviceId={deviceId}
                pin={pin}
                name={names.get(pin)}
                locked={locked.has(pin)}
                canEdit={canEdit}
                onLockChange={onLockChange}
              />
            ))}
            {pins.length === 0 && <EmptyRow columns={5} text="No pin has a value yet. Values appear here as the device sends them." />}
          </tbody>
        </table>
      </div>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          show();
        }}
      >
        <PinPicker label="Show pin" value={draft} onChange={setDraft} />
        <button type="submit">Show pin</button>
      </form>
    </Card>
  );
}

function PinRow(props: { deviceId: string; pin: string; name?: string; locked: boolean; canEdit: boolean; onLockChange: () => void }) {
  const { deviceId, pin } = props;
  const live = usePinValue(deviceId, pin);
  const [run, error, busy] = useAction();
  const toggle = () =>
    run(async () => (props.locked ? await api.unlockPin(deviceId, pin) : await api.lockPin(deviceId, pin), props.onLockChange()));
  return (
    <tr>
      <td>
        {pin}
        {props.name && <span className="muted"> {props.name}</span>}
      </td>
      <td data-testid={`pin-value-${pin}`} className="value-cell">
        {live?.value ?? <span className="muted">no value</span>}
      </td>
      <td className="muted">{timeAgo(live?.at)}</td>
      <td>
        {props.canEdit ? (
          <button type="button" className="small" disabled={busy} onClick={toggle}>
            {props.locked ? '🔒 Unlock' : 'Lock'}
          </button>
        ) : props.locked ? (
          '🔒'
        ) : (
          ''
        )}
        <ErrorLine error={error} />
      </td>
      <td>
        <Link to={`/devices/${deviceId}/pins/${pin}`}>History</Link>
      </td>
    </tr>
  );
}
