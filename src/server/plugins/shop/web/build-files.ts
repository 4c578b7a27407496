/**
 * The built app's files the server reads: index.html, Vite's manifest and the build's routes.json,
 * each read again only when a new build replaces it, and looked at no more than once a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROUTES, type RouteId } from '../../../../shared/routes.js';

/** Vite's build manifest (dist/web/.vite/manifest.json), as far as used here. */
export type Manifest = Record<string, { file: string; imports?: string[]; css?: string[] }>;

/**
 * The build's .vite/routes.json: the screen module (a manifest key) of each route whose screen is
 * named in the page's head when a visitor opens it first (`preload` in src/shared/routes.ts).
 */
export type RouteModules = Partial<Record<RouteId, string>>;

/** What was read of one build, and when its files were last looked at. */
export interface BuildFiles {
  indexFile: string;
  manifestFile: string;
  routesFile: string;
  page: { mtimeMs: number; html: string };
  lookedAt: number;
  manifest: { mtimeMs: number; entries: Manifest; routes: RouteModules };
  manifestLookedAt: number;
}

export function buildFilesOf(webDir: string): BuildFiles {
  return {
    indexFile: path.join(webDir, 'index.html'),
    manifestFile: path.join(webDir, '.vite', 'manifest.json'),
    routesFile: path.join(webDir, '.vite', 'routes.json'),
    page: { mtimeMs: -1, html: '' },
    lookedAt: 0,
    manifest: { mtimeMs: -1, entries: {}, routes: {} },
    manifestLookedAt: 0,
  };
}

/**
 * index.html, read again only when a new build replaces it. Looked at no more than once a
 * second, not on every request: a deploy that rebuilds in place shows within a second.
 */
export function indexHtml(files: BuildFiles): string {
  const now = Date.now();
  if (now - files.lookedAt >= 1000 || files.page.mtimeMs < 0) {
    files.lookedAt = now;
    const { mtimeMs } = fs.statSync(files.indexFile);
    if (mtimeMs !== files.page.mtimeMs) files.page = { mtimeMs, html: fs.readFileSync(files.indexFile, 'utf8') };
  }
  return files.page.html;
}

/** The manifest and the routes' modules, read again only when a new build replaces them. */
export function readManifest(files: BuildFiles): { entries: Manifest; routes: RouteModules } {
  const now = Date.now();
  if (now - files.manifestLookedAt < 1000 && files.manifest.mtimeMs >= 0) return files.manifest;
  files.manifestLookedAt = now;
  const stat = fs.statSync(files.manifestFile, { throwIfNoEntry: false });
  if (!stat) return { entries: {}, routes: {} };
  if (stat.mtimeMs !== files.manifest.mtimeMs) {
    const routes = fs.existsSync(files.routesFile) ? (JSON.parse(fs.readFileSync(files.routesFile, 'utf8')) as RouteModules) : {};
    const entries = JSON.parse(fs.readFileSync(files.manifestFile, 'utf8')) as Manifest;
    files.manifest = { mtimeMs: stat.mtimeMs, entries, routes };
  }
  return files.manifest;
}

/** A name of the build being served, part of every page's cache key. */
export function buildKey(files: BuildFiles): string {
  // Both read first, so that the key names this build from the first request on.
  const html = indexHtml(files);
  readManifest(files);
  return `${html.length}:${files.page.mtimeMs}:${files.manifest.mtimeMs}`;
}

/** The JS and CSS files a manifest entry loads, with everything it imports statically. */
export function filesOf(manifest: Manifest, key: string, seen = new Set<string>()): { js: Set<string>; css: Set<string> } {
  const found = { js: new Set<string>(), css: new Set<string>() };
  const visit = (k: string) => {
    const chunk = manifest[k];
    if (!chunk || seen.has(k)) return;
    seen.add(k);
    found.js.add(chunk.file);
    for (const css of chunk.css ?? []) found.css.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(key);
  return found;
}

/** The JS and CSS files of the screen at this path that index.html does not load already. */
export function screenFiles(files: BuildFiles, route: RouteId | undefined): { js: string[]; css: string[] } {
  const { entries, routes } = readManifest(files);
  const screen = route && ROUTES[route].preload ? routes[route] : undefined;
  if (!screen) return { js: [], css: [] };
  const inIndex = filesOf(entries, 'index.html');
  const { js, css } = filesOf(entries, screen);
  return { js: [...js].filter((f) => !inIndex.js.has(f)), css: [...css].filter((f) => !inIndex.css.has(f)) };
}
