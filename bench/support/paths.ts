import { resolve } from 'node:path';

/** The repository root: this file runs as dist/bench/support/paths.js. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** The built `npm start` entry: one node with the gateway and the twin worker. */
export const SERVICE_ENTRY = resolve(REPO_ROOT, 'dist', 'scripts', 'start.js');

/** The built gateway-only entry: HTTP, Socket.IO and the MQTT bridge, no worker. */
export const GATEWAY_ENTRY = resolve(REPO_ROOT, 'dist', 'gateway', 'main.js');

/** The built worker-only entry: the device twins. */
export const WORKER_ENTRY = resolve(REPO_ROOT, 'dist', 'workers', 'main.js');
