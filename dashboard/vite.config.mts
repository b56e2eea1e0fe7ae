import path from 'node:path';
import { defineConfig } from 'vite';

/** The console is built into dist/dashboard, next to the compiled gateway that serves it. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: path.resolve(import.meta.dirname, '../dist/dashboard'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 800,
  },
});
