import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file sits at src/server/paths.ts, or dist/server/paths.js once built. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const migrationsDir = path.join(projectRoot, 'src', 'server', 'db', 'migrations');
/** Images of the demo catalogue, shipped with the project and served at /images. */
export const demoImagesDir = path.join(projectRoot, 'assets', 'demo-images');
/** The built React app (`vite build`). */
export const webDistDir = path.join(projectRoot, 'dist', 'web');
