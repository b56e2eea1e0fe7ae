import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_NODE_FLAGS } from '../../bench/support/paths';

const root = join(__dirname, '..', '..');

/** The benches start nodes with the flags production does (docs/operations.md, "Gateway nodes: memory and Node flags"). */
describe('Node flags of a node with a gateway', () => {
  it('are the ones `npm start` runs the service with', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(['node', ...GATEWAY_NODE_FLAGS, 'dist/scripts/start.js'].join(' '));
  });

  it("are the ones the image's CMD runs the gateway with", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...GATEWAY_NODE_FLAGS, 'dist/gateway/main.js']);
  });
});
