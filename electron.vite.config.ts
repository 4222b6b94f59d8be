// Builds the three Electron bundles (main, preload, renderer) and, in the main bundle, the headless
// entries (serve, cli) that run the same core on plain Node.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      // The JavaScript dependencies are bundled in: loaded from node_modules they were some 350 files,
      // whose resolving and reading made every CLI command and every start about 0.2 s longer
      // (bench/cli-start.mjs, which builds the other way with TITULAR_BUILD_EXTERNAL_DEPS=1 to compare).
      // better-sqlite3 stays outside (a native module, loaded from its package by its binding).
      externalizeDeps: process.env.TITULAR_BUILD_EXTERNAL_DEPS === '1' ? true : { exclude: ['zod', 'drizzle-orm', 'fastify'] },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          serve: resolve(__dirname, 'src/main/headless/serve.ts'),
          cli: resolve(__dirname, 'src/main/headless/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/preload/index.ts') } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
});
