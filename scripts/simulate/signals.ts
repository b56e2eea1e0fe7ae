/** One simulated reading: the pin it goes to and its text value. */
export interface Reading {
  pin: string;
  value: string;
}

/**
 * The values a simulated device reports, in turn: a temperature on a slow sine (V0), a humidity
 * on a bounded random walk (V1), and a door contact that flips now and then (D0). Each device gets
 * its own phase and starting point so the charts differ.
 */
export function deviceSignals(seed: number, random: () => number = Math.random) {
  const phase = (seed * 0.7) % (2 * Math.PI);
  let humidity = 40 + (seed % 20);
  let door = false;
  let turn = 0;
  return (now: number): Reading => {
    const which = turn++ % 3;
    if (which === 0) {
      const temperature = 21 + 4 * Math.sin((2 * Math.PI * now) / 120_000 + phase) + (random() - 0.5) * 0.2;
      return { pin: 'V0', value: temperature.toFixed(2) };
    }
    if (which === 1) {
      humidity = Math.min(95, Math.max(5, humidity + (random() - 0.5) * 2));
      return { pin: 'V1', value: humidity.toFixed(1) };
    }
    if (random() < 0.1) door = !door;
    return { pin: 'D0', value: door ? '1' : '0' };
  };
}
