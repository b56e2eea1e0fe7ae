import { connect, type Socket } from 'node:net';

/**
 * MONITOR on one Redis server over a plain socket: `onCommand` gets each command the server runs
 * (its name and arguments as MONITOR quotes them). Resolves once the server confirmed MONITOR.
 * Not ioredis `monitor()`: it enters monitoring mode a promise job after MONITOR's `OK`, so lines
 * that arrive in the same read as the `OK` (a busy server) are taken for command replies and raise
 * "Command queue state error".
 */
export function monitorCommands(host: string, port: number, onCommand: (args: string[]) => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => socket.write('MONITOR\r\n'));
    let buffered = '';
    let confirmed = false;
    socket.setEncoding('latin1');
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\r\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!confirmed) {
          if (line !== '+OK') return reject(new Error(`MONITOR refused: ${line}`));
          confirmed = true;
          resolve(socket);
          continue;
        }
        const quoted = line.indexOf('"');
        if (quoted >= 0) onCommand(monitorArguments(line.slice(quoted)));
      }
    });
  });
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' };

/**
 * The arguments of one MONITOR line (`"EVAL" "local x = \"a\"\n..." "1"`), unquoted as Redis
 * quotes them (sdscatrepr: `\"`, `\\`, `\n`, `\r`, `\t`, `\a`, `\b`, `\xHH`), so a script's body
 * reads as sent.
 */
function monitorArguments(quoted: string): string[] {
  const args: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < quoted.length; i++) {
    const c = quoted[i];
    if (current === null) {
      if (c === '"') current = '';
      continue;
    }
    if (c === '"') {
      args.push(current);
      current = null;
    } else if (c === '\\' && quoted[i + 1] === 'x') {
      current += String.fromCharCode(Number.parseInt(quoted.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (c === '\\') {
      const next = quoted[i + 1] ?? '';
      current += ESCAPES[next] ?? next;
      i += 1;
    } else current += c;
  }
  return args;
}
