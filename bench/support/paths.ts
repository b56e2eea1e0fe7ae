import { resolve } from 'node:path';

/** The repository root: this file runs as dist/bench/support/paths.js. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** The built `npm start` entry: one node with the gateway and the twin worker. */
export const SERVICE_ENTRY = resolve(REPO_ROOT, 'dist', 'scripts', 'start.js');

/**
 * The Node flags a node with a gateway runs with, as `npm start` (package.json) and the image's
 * `CMD` (Dockerfile) start it (test/ops/node-flags.test.ts keeps the three the same): 64 MB
 * semi-spaces, so the young generation holds the short-lived objects of the values in flight
 * and scavenges less often (docs/operations.md, "Gateway nodes: memory and Node flags").
 */
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=64'];

/** The built gateway-only entry: HTTP, Socket.IO and the MQTT bridge, no worker. */
export const GATEWAY_ENTRY = resolve(REPO_ROOT, 'dist', 'gateway', 'main.js');

/** The built worker-only entry: the device twins. */
export const WORKER_ENTRY = resolve(REPO_ROOT, 'dist', 'workers', 'main.js');
