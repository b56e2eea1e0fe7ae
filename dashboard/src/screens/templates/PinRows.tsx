import { DATA_TYPES } from '../../../../common/widget-config';
import type { DataType } from '../../api/types';
import { EmptyRow } from '../../ui/common';
import { DATA_TYPE_LABELS } from '../../widgets/config-fields';
import { type PinRow, pinRow } from './template-draft';

/** The pins a template declares, one editable row each: pin, name, data type, unit, range. */
export function PinRows({ rows, onChange }: { rows: PinRow[]; onChange: (rows: PinRow[]) => void }) {
  const set = (key: number, change: Partial<PinRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  return (
    <fieldset className="pin-rows">
      <legend>Pins</legend>
      <div className="table-scroll">
        <table className="compact" data-testid="template-pins">
          <thead>
            <tr>
              <th>Pin</th>
              <th>Name</th>
              <th>Data type</th>
              <th>Unit</th>
              <th>Min</th>
              <th>Max</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const n = i + 1;
              return (
                <tr key={r.key}>
                  <td>
                    <input
                      aria-label={`Pin ${n}`}
                      placeholder="V0"
                      size={5}
                      value={r.pin}
                      onChange={(e) => set(r.key, { pin: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Pin ${n} name`}
                      placeholder="Temperature"
                      maxLength={100}
                      value={r.name}
                      onChange={(e) => set(r.key, { name: e.target.value })}
                    />
                  </td>
                  <td>
                    <select
                      aria-label={`Pin ${n} data type`}
                      value={r.dataType}
                      onChange={(e) => set(r.key, { dataType: e.target.value as DataType })}
                    >
                      {DATA_TYPES.map((t) => (
                        <option key={t} value={t}>
                          {DATA_TYPE_LABELS[t]}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <input
                      aria-label={`Pin ${n} unit`}
                      placeholder="°C"
                      size={5}
                      maxLength={20}
                      value={r.unit}
                      onChange={(e) => set(r.key, { unit: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Pin ${n} minimum`}
                      type="number"
                      step="any"
                      value={r.min}
                      onChange={(e) => set(r.key, { min: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Pin ${n} maximum`}
                      type="number"
                      step="any"
                      value={r.max}
                      onChange={(e) => set(r.key, { max: e.target.value })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="small danger"
                      aria-label={`Remove pin ${n}`}
                      onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
                    >
                      ✕
                    </button>
                  </td>
                </tr>
              );
            })}
            {rows.length === 0 && <EmptyRow columns={7} text="No pins yet. Each pin says what the devices of this template send on it." />}
          </tbody>
        </table>
      </div>
      <div className="row">
        <button type="button" className="small" onClick={() => onChange([...rows, pinRow({ pin: nextFreePin(rows) })])}>
          Add pin
        </button>
      </div>
    </fieldset>
  );
}

/** The first V pin no row uses yet, a starting point for a new row. */
function nextFreePin(rows: readonly PinRow[]): string {
  const used = new Set(rows.map((r) => r.pin.trim().toUpperCase()));
  for (let i = 0; i <= 255; i++) if (!used.has(`V${i}`)) return `V${i}`;
  return '';
}
