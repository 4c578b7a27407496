import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file (src/server, or dist/src/server once built) with package.json. */
function findProjectRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

export const migrationsDir = path.join(projectRoot, 'src', 'server', 'db', 'migrations');
/** Images of the demo catalogue, shipped with the project and served at /images. */
export const demoImagesDir = path.join(projectRoot, 'assets', 'demo-images');
/** The built React app (`vite build`). */
export const webDistDir = path.join(projectRoot, 'dist', 'web');
