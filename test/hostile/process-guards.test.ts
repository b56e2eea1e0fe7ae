import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/**
 * A process with a fault nobody caught: a rejected promise, then an exception thrown from a timer,
 * then it reports its counter and exits 0 on its own if it is still alive.
 */
function runFaultyProcess(guarded: boolean): Promise<{ code: number | null; out: string }> {
  const script = `
    const { createLogger } = require('./common/logger.ts');
    const { createMetrics } = require('./common/metrics.ts');
    const { guardProcess } = require('./common/process-guards.ts');
    const metrics = createMetrics();
    if (${guarded}) guardProcess(createLogger('info', 'guard-test'), metrics);
    Promise.reject(new Error('a rejection nobody handled'));
    setTimeout(() => { throw new Error('an exception nobody caught'); }, 20);
    setTimeout(() => metrics.render().then((text) => { process.stdout.write('still up: ' + text); process.exit(0); }), 300);
  `;
  const child = spawn(process.execPath, ['-r', resolve(ROOT, 'test/twin/support/ts-register.js'), '-e', script], { cwd: ROOT });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  return new Promise((done) => child.once('exit', (code) => done({ code, out })));
}

describe('process guards', () => {
  it('a guarded process logs and counts an unhandled rejection and an uncaught exception, and keeps running', async () => {
    const { code, out } = await runFaultyProcess(true);
    expect(code).toBe(0);
    expect(out).toContain('"msg":"unhandled rejection; still serving"');
    expect(out).toContain('a rejection nobody handled');
    expect(out).toContain('"msg":"uncaught exception; still serving"');
    expect(out).toContain('an exception nobody caught');
    expect(out).toContain('still up:');
    expect(out).toMatch(/^dds_process_faults_total 2$/m);
  });

  it("without the guards the same process dies (Node's default), so the test above can fail", async () => {
    const { code, out } = await runFaultyProcess(false);
    expect(code).toBe(1);
    expect(out).not.toContain('still up');
  });
});
