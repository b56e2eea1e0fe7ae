/** Plain SVG pieces the display widgets share. */

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

export function fraction(value: number, min: number, max: number): number {
  return max > min ? clamp01((value - min) / (max - min)) : 0;
}

function polar(cx: number, cy: number, r: number, angle: number): [number, number] {
  return [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
}

function arc(cx: number, cy: number, r: number, from: number, to: number): string {
  const [x1, y1] = polar(cx, cy, r, from);
  const [x2, y2] = polar(cx, cy, r, to);
  const large = to - from > Math.PI ? 1 : 0;
  return `M ${x1} ${y1} A ${r} ${r} 0 ${large} 1 ${x2} ${y2}`;
}

/** A half-ring gauge filled to `f` (0..1). */
export function RingGauge({ f, text, sub }: { f: number; text: string; sub: string }) {
  const start = Math.PI;
  const end = start + Math.PI * Math.max(f, 0.0001);
  return (
    <svg viewBox="0 0 200 120" className="fill" role="img" aria-label={`Gauge: ${text} (${sub})`}>
      <path d={arc(100, 100, 80, Math.PI, 2 * Math.PI)} stroke="#e2e8f0" strokeWidth="18" fill="none" strokeLinecap="round" />
      <path d={arc(100, 100, 80, start, end)} stroke="#2563eb" strokeWidth="18" fill="none" strokeLinecap="round" />
      <text x="100" y="92" textAnchor="middle" fontSize="28" fontWeight="600" fill="#0f172a">
        {text}
      </text>
      <text x="100" y="115" textAnchor="middle" fontSize="12" fill="#64748b">
        {sub}
      </text>
    </svg>
  );
}

/** A dial with ticks and a needle at `f` (0..1) over 270°. */
export function Dial({ f, text, min, max }: { f: number; text: string; min: number; max: number }) {
  const from = (3 * Math.PI) / 4;
  const sweep = (3 * Math.PI) / 2;
  const ticks = Array.from({ length: 11 }, (_, i) => from + (sweep * i) / 10);
  const [nx, ny] = polar(100, 100, 68, from + sweep * f);
  return (
    <svg viewBox="0 0 200 200" className="fill" role="img" aria-label={`Dial: ${text} (${min} – ${max})`}>
      <circle cx="100" cy="100" r="92" fill="#f8fafc" stroke="#cbd5e1" strokeWidth="3" />
      {ticks.map((a, i) => {
        const [x1, y1] = polar(100, 100, 80, a);
        const [x2, y2] = polar(100, 100, i % 5 === 0 ? 66 : 72, a);
        return <line key={a} x1={x1} y1={y1} x2={x2} y2={y2} stroke="#475569" strokeWidth={i % 5 === 0 ? 3 : 1.5} />;
      })}
      <text x={polar(100, 100, 58, from)[0]} y={polar(100, 100, 58, from)[1] + 14} fontSize="11" fill="#64748b" textAnchor="middle">
        {min}
      </text>
      <text
        x={polar(100, 100, 58, from + sweep)[0]}
        y={polar(100, 100, 58, from + sweep)[1] + 14}
        fontSize="11"
        fill="#64748b"
        textAnchor="middle"
      >
        {max}
      </text>
      <line x1="100" y1="100" x2={nx} y2={ny} stroke="#dc2626" strokeWidth="4" strokeLinecap="round" />
      <circle cx="100" cy="100" r="7" fill="#0f172a" />
      <text x="100" y="160" textAnchor="middle" fontSize="22" fontWeight="600" fill="#0f172a">
        {text}
      </text>
    </svg>
  );
}

/** A line through the numbers, no axes. */
export function Spark({ values }: { values: number[] }) {
  if (values.length < 2) return <svg viewBox="0 0 100 30" className="fill" />;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const d = values.map((v, i) => `${i === 0 ? 'M' : 'L'} ${(i / (values.length - 1)) * 100} ${28 - ((v - lo) / span) * 26}`).join(' ');
  return (
    <svg
      viewBox="0 0 100 30"
      preserveAspectRatio="none"
      className="fill"
      role="img"
      aria-label={`Trend of the last ${values.length} values`}
    >
      <path d={d} stroke="#2563eb" strokeWidth="1.5" fill="none" vectorEffect="non-scaling-stroke" />
    </svg>
  );
}

export interface Coordinate {
  lat: number;
  lon: number;
}

/** Reads `lat,lon` or JSON `{lat, lon}` (also `lng`). */
export function parseCoordinate(value: string | undefined): Coordinate | null {
  if (!value) return null;
  try {
    const j = JSON.parse(value) as { lat?: unknown; lon?: unknown; lng?: unknown };
    if (j && typeof j === 'object' && typeof j.lat === 'number' && typeof (j.lon ?? j.lng) === 'number')
      return { lat: j.lat, lon: (j.lon ?? j.lng) as number };
  } catch {
    // not JSON: try "lat,lon"
  }
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length === 2 && parts.every(Number.isFinite) && Math.abs(parts[0] as number) <= 90 && Math.abs(parts[1] as number) <= 180) {
    return { lat: parts[0] as number, lon: parts[1] as number };
  }
  return null;
}

/** A coordinate a pin took at `at` (one value per time in a pin's series, so `at` keys it). */
export interface Position extends Coordinate {
  at: string;
}

/**
 * Coordinates on a graticule, scaled to their own bounding box (no map tiles: the console runs
 * without internet). The newest point is the red one.
 */
export function CoordinatePlot({ points }: { points: Position[] }) {
  const lats = points.map((p) => p.lat);
  const lons = points.map((p) => p.lon);
  const pad = 0.002;
  const minLat = Math.min(...lats) - pad;
  const maxLat = Math.max(...lats) + pad;
  const minLon = Math.min(...lons) - pad;
  const maxLon = Math.max(...lons) + pad;
  const x = (lon: number) => 10 + ((lon - minLon) / (maxLon - minLon)) * 180;
  const y = (lat: number) => 110 - ((lat - minLat) / (maxLat - minLat)) * 100;
  const last = points[points.length - 1];
  return (
    <svg
      viewBox="0 0 200 120"
      className="fill map"
      role="img"
      aria-label={
        last ? `Map of ${points.length} position${points.length === 1 ? '' : 's'}, the newest at ${last.lat}, ${last.lon}` : 'Map'
      }
    >
      <rect x="0" y="0" width="200" height="120" fill="#ecfdf5" />
      {[0, 1, 2, 3, 4].map((i) => (
        <g key={i} stroke="#d1fae5">
          <line x1={10 + i * 45} y1="0" x2={10 + i * 45} y2="120" />
          <line x1="0" y1={10 + i * 25} x2="200" y2={10 + i * 25} />
        </g>
      ))}
      {points.length > 1 && (
        <polyline points={points.map((p) => `${x(p.lon)},${y(p.lat)}`).join(' ')} fill="none" stroke="#2563eb" strokeWidth="1.5" />
      )}
      {points.slice(0, -1).map((p) => (
        <circle key={p.at} cx={x(p.lon)} cy={y(p.lat)} r="2" fill="#2563eb" />
      ))}
      {last && <circle cx={x(last.lon)} cy={y(last.lat)} r="5" fill="#dc2626" stroke="white" strokeWidth="1.5" />}
    </svg>
  );
}
