import { defineConfig, defaultClientConditions, type ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';

// The API server of `npm run dev -w @adam/server`; websockets go through the same proxy.
const apiProxy: Record<string, ProxyOptions> = {
  '/api': { target: 'http://127.0.0.1:8000', ws: true },
};

export default defineConfig({
  plugins: [react()],
  resolve: {
    // Use @adam/contracts from its TypeScript source, so the web app needs no contracts build.
    conditions: ['adam-source', ...defaultClientConditions],
  },
  server: { port: 5173, proxy: apiProxy },
  preview: { port: 4173, proxy: apiProxy },
  // Mantine, React and the router form one ~700 kB entry chunk; screens load lazily. No source
  // maps: the served console would publish its sources with them (the server refuses .map too).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1000 },
});
