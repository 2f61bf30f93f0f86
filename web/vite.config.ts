import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const shim = (name: string) => fileURLToPath(new URL(`./src/shims/${name}.ts`, import.meta.url));

/**
 * The UI bundle. It imports shared/domain and shared/chat as they are; the three Node built-ins
 * that pure domain modules touch are swapped for browser versions of the same behaviour
 * (docs/web-ui.md). No AWS SDK may reach the bundle: test/web/bundle.test.ts reads it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: {
      'node:url': shim('node-url'),
      'node:net': shim('node-net'),
      'node:crypto': shim('node-crypto'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // One small app: a single chunk loads in one round trip.
    chunkSizeWarningLimit: 1024,
  },
  logLevel: 'warn',
});
