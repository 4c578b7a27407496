import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The storefront and admin: a React app built into dist/web, which the API server serves.
// `npm run dev:web` serves it with hot reload and sends API and image requests to the server on :3000.
const server = 'http://localhost:3000';

export default defineConfig({
  root: 'src/web',
  plugins: [react()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: { '/api': server, '/images': server, '/uploads': server },
  },
});
