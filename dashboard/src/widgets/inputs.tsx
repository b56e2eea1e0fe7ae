import { useEffect, useRef, useState, type PointerEvent } from 'react';
import type { Widget } from '../api/types';
import type { LiveValue } from '../realtime/live-values';
import { num, str } from './catalog';

export interface InputProps {
  widget: Widget;
  value: LiveValue | undefined;
  series: LiveValue[] | undefined;
  readOnly: boolean;
  write: (value: string) => void;
}

/** Sends at most every `ms`, always sending the last value (a dragged slider writes ~10/s, not 100/s). */
function useThrottled(send: (v: string) => void, ms: number): (v: string) => void {
  const last = useRef(0);
  const pending = useRef<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return (v: string) => {
    pending.current = v;
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      last.current = Date.now();
      pending.current = null;
      send(v);
    } else if (!timer.current) {
      timer.current = setTimeout(() => {
        timer.current = null;
        last.current = Date.now();
        if (pending.current !== null) send(pending.current);
        pending.current = null;
      }, wait);
    }
  };
}

export function ButtonWidget({ widget, readOnly, write, value }: InputProps) {
  const on = str(widget.config, 'onValue', '1');
  const off = str(widget.config, 'offValue', '0');
  return (
    <button
      type="button"
      className={`push ${value?.value === on ? 'on' : ''}`}
      disabled={readOnly}
      onPointerDown={() => write(on)}
      onPointerUp={() => write(off)}
      onKeyDown={(e) => e.key === ' ' && write(on)}
      onKeyUp={(e) => e.key === ' ' && write(off)}
    >
      {value?.value === on ? 'ON' : 'Press'}
    </button>
  );
}

export function SwitchWidget({ widget, readOnly, write, value }: InputProps) {
  const on = str(widget.config, 'onValue', '1');
  const off = str(widget.config, 'offValue', '0');
  const isOn = value?.value === on;
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        checked={isOn}
        aria-checked={isOn}
        disabled={readOnly}
        onChange={(e) => write(e.target.checked ? on : off)}
      />
      <span>{isOn ? 'ON' : 'OFF'}</span>
    </label>
  );
}

export function SliderWidget({ widget, readOnly, write, value }: InputProps) {
  const min = num(widget.config, 'min', 0);
  const max = num(widget.config, 'max', 100);
  const step = num(widget.config, 'step', 1);
  const [local, setLocal] = useState<string | null>(null);
  const send = useThrottled(write, 100);
  const shown = local ?? value?.value ?? String(min);
  return (
    <div className="slider">
      <input
        type="range"
        aria-label="Slider"
        min={min}
        max={max}
        step={step}
        value={Number(shown) || min}
        disabled={readOnly}
        onChange={(e) => {
          setLocal(e.target.value);
          send(e.target.value);
        }}
        onPointerUp={() => setLocal(null)}
        onBlur={() => setLocal(null)}
      />
      <span className="value">
        {shown}
        {str(widget.config, 'suffix', '')}
      </span>
    </div>
  );
}

export function NumberInputWidget({ widget, readOnly, write, value }: InputProps) {
  const [text, setText] = useState('');
  return (
    <form
      className="row tight"
      onSubmit={(e) => {
        e.preventDefault();
        if (text !== '') write(text);
      }}
    >
      <input
        type="number"
        aria-label="Number"
        min={num(widget.config, 'min', -Infinity)}
        max={num(widget.config, 'max', Infinity)}
        step={num(widget.config, 'step', 1)}
        placeholder={value?.value ?? ''}
        value={text}
        disabled={readOnly}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" disabled={readOnly}>
        Set
      </button>
    </form>
  );
}

export function TextInputWidget({ readOnly, write, value }: InputProps) {
  const [text, setText] = useState('');
  return (
    <form
      className="row tight"
      onSubmit={(e) => {
        e.preventDefault();
        write(text);
        setText('');
      }}
    >
      <input
        aria-label="Text"
        placeholder={value?.value ?? ''}
        value={text}
        disabled={readOnly}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" disabled={readOnly}>
        Send
      </button>
    </form>
  );
}

export function StepControlWidget({ widget, readOnly, write, value }: InputProps) {
  const min = num(widget.config, 'min', -Infinity);
  const max = num(widget.config, 'max', Infinity);
  const step = num(widget.config, 'step', 1);
  const current = Number(value?.value ?? 0) || 0;
  const go = (d: number) => write(String(Math.min(max, Math.max(min, +(current + d).toFixed(6)))));
  return (
    <div className="row tight center">
      <button type="button" disabled={readOnly} onClick={() => go(-step)} aria-label="Step down">
        −
      </button>
      <span className="value">
        {value?.value ?? '—'}
        {str(widget.config, 'suffix', '')}
      </span>
      <button type="button" disabled={readOnly} onClick={() => go(step)} aria-label="Step up">
        +
      </button>
    </div>
  );
}

export function SegmentedWidget({ widget, readOnly, write, value }: InputProps) {
  const raw = widget.config.options;
  const options = Array.isArray(raw) ? raw.filter((o): o is string => typeof o === 'string') : ['A', 'B', 'C'];
  return (
    <div className="segmented">
      {options.map((o) => (
        <button key={o} type="button" className={value?.value === o ? 'active' : ''} disabled={readOnly} onClick={() => write(o)}>
          {o}
        </button>
      ))}
    </div>
  );
}

export function ColorPickerWidget({ readOnly, write, value }: InputProps) {
  const color = /^#[0-9a-f]{6}$/i.test(value?.value ?? '') ? (value?.value as string) : '#000000';
  const send = useThrottled(write, 100);
  return (
    <div className="row tight center">
      <input type="color" aria-label="Color" value={color} disabled={readOnly} onChange={(e) => send(e.target.value)} />
      <code>{value?.value ?? '—'}</code>
    </div>
  );
}

/** Sends `x,y` scaled to min..max while dragged; springs back to the centre on release. */
export function JoystickWidget({ widget, readOnly, write, value }: InputProps) {
  const min = num(widget.config, 'min', -100);
  const max = num(widget.config, 'max', 100);
  const [pos, setPos] = useState<[number, number]>([0, 0]);
  const dragging = useRef(false);
  const send = useThrottled(write, 100);
  const scale = (f: number) => Math.round(min + ((f + 1) / 2) * (max - min));
  const move = (e: PointerEvent<SVGSVGElement>) => {
    if (!dragging.current) return;
    const box = e.currentTarget.getBoundingClientRect();
    let fx = ((e.clientX - box.left) / box.width) * 2 - 1;
    let fy = 1 - ((e.clientY - box.top) / box.height) * 2;
    const len = Math.hypot(fx, fy);
    if (len > 1) [fx, fy] = [fx / len, fy / len];
    setPos([fx, fy]);
    send(`${scale(fx)},${scale(fy)}`);
  };
  const release = () => {
    if (!dragging.current) return;
    dragging.current = false;
    setPos([0, 0]);
    send(`${scale(0)},${scale(0)}`);
  };
  return (
    <div className="joystick">
      <svg
        viewBox="-110 -110 220 220"
        className={`fill ${readOnly ? 'disabled' : ''}`}
        onPointerDown={(e) => {
          if (readOnly) return;
          dragging.current = true;
          e.currentTarget.setPointerCapture(e.pointerId);
          move(e);
        }}
        onPointerMove={move}
        onPointerUp={release}
        onPointerCancel={release}
      >
        <title>Joystick: drag to send x,y</title>
        <circle r="100" fill="#f1f5f9" stroke="#cbd5e1" strokeWidth="3" />
        <circle cx={pos[0] * 70} cy={-pos[1] * 70} r="30" fill="#2563eb" />
      </svg>
      <span className="muted">{value?.value ?? '—'}</span>
    </div>
  );
}

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

/** Builds a code from the keys and sends it with OK; `config.locked` locks the pin (server-side). */
export function KeypadWidget({ widget, readOnly, write }: InputProps) {
  const [code, setCode] = useState('');
  const locked = widget.config.locked === true;
  return (
    <div className="keypad">
      <div className="keypad-display">
        {locked && <span title="Pin locked">🔒 </span>}
        {code.replace(/./g, '•') || <span className="muted">{locked ? 'locked' : 'enter code'}</span>}
      </div>
      <div className="keys">
        {KEYS.map((k) => (
          <button key={k} type="button" disabled={readOnly} onClick={() => setCode((c) => (c + k).slice(0, 16))}>
            {k}
          </button>
        ))}
        <button type="button" disabled={readOnly} onClick={() => setCode('')}>
          C
        </button>
        <button
          type="button"
          className="primary"
          disabled={readOnly || code === ''}
          onClick={() => {
            write(code);
            setCode('');
          }}
        >
          OK
        </button>
      </div>
    </div>
  );
}

export function TerminalWidget({ readOnly, write, series }: InputProps) {
  const [text, setText] = useState('');
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    log.current?.scrollTo(0, log.current.scrollHeight);
  }, [series]);
  return (
    <div className="terminal">
      <div className="terminal-log" ref={log}>
        {(series ?? []).slice(-50).map((line) => (
          // A pin's series holds one value per time (live-values.ts), so the time is a stable key.
          <div key={line.at}>
            <span className="muted">{line.at.slice(11, 19)}</span> {line.value}
          </div>
        ))}
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text === '') return;
          write(text);
          setText('');
        }}
      >
        <input
          aria-label="Terminal input"
          value={text}
          disabled={readOnly}
          placeholder="> type and press Enter"
          onChange={(e) => setText(e.target.value)}
        />
      </form>
    </div>
  );
}
