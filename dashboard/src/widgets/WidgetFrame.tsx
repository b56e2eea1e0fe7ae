import { memo, useRef, useState } from 'react';
import type { CommandState } from '../../../common/contracts';
import { errorText } from '../api/errors';
import type { DeviceWidget, Widget } from '../api/types';
import { usePinSeries, usePinValue } from '../realtime/live-values';
import { widgetPin } from '../pins/widget-pin';
import { useSocket, useSocketEvent, writePin } from '../realtime/socket';
import { INPUT_TYPES, isWidgetType, str, title } from './catalog';
import { WidgetBody } from './WidgetBody';

interface Props {
  widget: DeviceWidget;
  deviceName: string;
  readOnly: boolean;
  onEdit: (w: Widget) => void;
  onDelete: (w: Widget) => void;
}

/** One widget: its live value (re-rendered alone on its pin's updates), writes and their errors. */
export const WidgetFrame = memo(function WidgetFrame({ widget, deviceName, readOnly, onEdit, onDelete }: Props) {
  const { socket } = useSocket();
  const pin = widgetPin(widget);
  const value = usePinValue(widget.deviceId, pin);
  const series = usePinSeries(widget.deviceId, pin);
  const [error, setError] = useState<string | null>(null);
  const type = isWidgetType(widget.type) ? widget.type : null;
  // The last write's command and its state (docs/commands.md): its events may come before the ack.
  const [command, setCommand] = useState<{ id: string; state: CommandState } | null>(null);
  const seen = useRef(new Map<string, CommandState>());
  useSocketEvent('command', (c) => {
    if (c.deviceId !== widget.deviceId || c.pin !== pin) return;
    seen.current.set(c.id, c.state);
    setCommand((current) => (current?.id === c.id ? { id: c.id, state: c.state } : current));
  });

  const write = (v: string) => {
    setError(null);
    void writePin(socket, widget.deviceId, pin, v).then((ack) => {
      if (!ack.success) return setError(errorText(ack.error));
      if (ack.commandId) setCommand({ id: ack.commandId, state: seen.current.get(ack.commandId) ?? (ack.delivered ? 'sent' : 'queued') });
    });
  };

  return (
    <div className="widget" data-testid={`widget-${widget.type}`} data-widget-id={widget.id}>
      <header className="widget-handle">
        <strong>{str(widget.config, 'label', title(widget.type))}</strong>
        <span className="muted">
          {deviceName} · {pin}
        </span>
        {!readOnly && (
          <span className="widget-actions">
            <button type="button" className="icon" aria-label="Edit widget" onClick={() => onEdit(widget)}>
              ✎
            </button>
            <button type="button" className="icon" aria-label="Delete widget" onClick={() => onDelete(widget)}>
              ✕
            </button>
          </span>
        )}
      </header>
      <div className="widget-body" data-testid="widget-value" data-value={value?.value ?? ''} data-series={series?.length ?? 0}>
        {type ? (
          <WidgetBody
            type={type}
            widget={widget}
            value={value}
            series={series}
            readOnly={readOnly && INPUT_TYPES.has(type)}
            write={write}
          />
        ) : (
          <span className="muted">Unknown type {widget.type}</span>
        )}
      </div>
      {command && type && INPUT_TYPES.has(type) && (
        <p className="muted command-state" data-testid="command-state" data-state={command.state} title={`command ${command.id}`}>
          Command {command.state}
        </p>
      )}
      {error && (
        <p className="error widget-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
});
