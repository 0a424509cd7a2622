import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// In development the SPA talks to a locally running `amora` server through /proxy
// (product spec section 7); media URLs like /media/<id> go to the same server.
const devServer = process.env.AMORA_DEV_SERVER ?? 'http://127.0.0.1:8080';

// In development /operator and /operator/… answer the console's page, as the server does.
const operatorPages: Plugin = {
  name: 'amora-operator-pages',
  configureServer(server) {
    server.middlewares.use((req, _res, next) => {
      if (req.url && /^\/operator(\/|$|\?)/.test(req.url)) req.url = '/operator.html';
      next();
    });
  },
};

export default defineConfig({
  plugins: [react(), operatorPages],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      // ws: the realtime socket (/proxy/lust/api/ws) goes the same way as the API calls.
      '/proxy': { target: devServer, changeOrigin: true, ws: true, rewrite: (path) => path.replace(/^\/proxy/, '') },
      '/media': { target: devServer, changeOrigin: true },
      // The operator console calls its API same-origin (its cookie's path is /lust/operator).
      '/lust/operator': { target: devServer, changeOrigin: true },
    },
  },
  build: {
    // The manifest lets scripts/check-size.mjs find exactly the chunks of the first screen.
    manifest: true,
    // Two entries: the user app (index.html) and the staff console (operator.html, served by
    // the server for /operator/…). They share no code the console would drag into the app;
    // scripts/check-size.mjs measures only index.html's first screen.
    rollupOptions: { input: { main: 'index.html', operator: 'operator.html' } },
    // The login modal's decorative images stay separate, cacheable files.
    assetsInlineLimit: (file) => (file.includes('login-art-') ? false : undefined),
    target: 'es2022',
    chunkSizeWarningLimit: 300,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    // A test's own waits (findBy…, waitFor) carry its expectations; the per-test limit only
    // stops a hung test. At vitest's 5 s, a journey through lazily loaded pages (487 ms
    // alone) timed out while the machine's two cores also compiled Rust.
    testTimeout: 20_000,
  },
});
