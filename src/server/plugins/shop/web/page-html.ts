/** The HTML of a page: index.html with the preloads and data of its head, and its drawn first screen. */
import { imageSrcSet, imageUrl, isShopImage } from '../../../../shared/images.js';
import { INITIAL_DATA_ID, type InitialData, type RenderFirstScreen } from '../../../../shared/initial-data.js';
import { CARD_PHOTO_SIZES, SLIDE_PHOTO_SIZES } from '../../../../shared/photo-sizes.js';
import { type BuildFiles, filesOf, indexHtml, readManifest, screenFiles } from './build-files.js';
import type { PagePlan } from './page-plan.js';

/** The app's mount point in index.html, where a drawn first screen goes. */
const EMPTY_ROOT = '<div id="root"></div>';

export const escapeAttr = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A preload of a photo the page shows, with the srcset and sizes of its <img> so the browser picks the same file. */
export function photoPreload(image: string, sizes: string, high: boolean): string {
  if (!isShopImage(image)) return '';
  const srcset = imageSrcSet(image) ?? '';
  return `<link rel="preload" as="image" href="${escapeAttr(imageUrl(image, 640))}" imagesrcset="${escapeAttr(srcset)}" imagesizes="${escapeAttr(sizes)}"${high ? ' fetchpriority="high"' : ''}>`;
}

/**
 * The data as the text of a <template>: inert, never a script, and HTML-escaped so that no
 * product name can end the element early. The browser gives the JSON back as the text.
 */
export const dataBlock = (data: InitialData) =>
  `<template id="${INITIAL_DATA_ID}">${escapeAttr(JSON.stringify(data))}</template>`;

/** The home page's head: preloads of its first card's and first slide's photos, and its data. */
export function homeData({ products, top, categories }: InitialData): string {
  const first = products?.products[0];
  const slide = top?.[0];
  return [
    first ? photoPreload(first.image, CARD_PHOTO_SIZES, true) : '',
    slide ? photoPreload(slide.image, SLIDE_PHOTO_SIZES, false) : '',
    dataBlock({ products, top, categories }),
  ].join('');
}

const stylesheet = (file: string) => `<link rel="stylesheet" crossorigin href="/${escapeAttr(file)}">`;
const modulePreload = (file: string) => `<link rel="modulepreload" crossorigin href="/${escapeAttr(file)}">`;

/**
 * index.html with the app's script, and the module preloads of it that Vite wrote, replaced by
 * the build's after-photo script (src/web/after-photo.ts), which asks for them, and for the
 * screen's own modules, once the drawn page's photo is on screen. Unchanged for a build that
 * has no such script or whose page is written differently.
 */
export function appAfterPhoto(files: BuildFiles, html: string, screenScripts: string[]): string {
  const { entries } = readManifest(files);
  const index = entries['index.html'];
  const loader = entries['after-photo.ts'];
  if (!index || !loader) return html;
  const appScript = `<script type="module" crossorigin src="/${index.file}"></script>`;
  if (!html.includes(appScript)) return html;
  const appModules = [...filesOf(entries, 'index.html').js];
  let deferred = html;
  for (const file of appModules) deferred = deferred.replace(modulePreload(file), '');
  const entryImports = appModules.filter((f) => f !== index.file);
  const modules = [index.file, ...entryImports, ...screenScripts].map((f) => `/${f}`).join(' ');
  const loaderScript = `<script type="module" crossorigin src="/${escapeAttr(loader.file)}" data-modules="${escapeAttr(modules)}" data-entry-imports="${entryImports.length}"></script>`;
  return deferred.replace(appScript, loaderScript);
}

/**
 * The HTML of a plan's page: its screen's styles, its head, and either its screen's module
 * preloads or, when `renderer` is given, its first screen drawn by the app's renderer with the
 * code asked for once its photo is on screen.
 */
export async function pageHtml(files: BuildFiles, plan: PagePlan, renderer: RenderFirstScreen | undefined): Promise<string> {
  const data = plan.data?.() ?? {};
  const drawn = renderer !== undefined;
  const screen = screenFiles(files, plan.route);
  // A drawn page needs its styles at once, and its code only once its photo is on screen.
  const head = [...screen.css.map(stylesheet), ...(drawn ? [] : screen.js.map(modulePreload)), plan.head?.(data) ?? ''].join('');
  let html = head ? indexHtml(files).replace('</head>', `${head}</head>`) : indexHtml(files);
  if (drawn) {
    const firstScreen = await renderer(plan.pathname, data);
    html = appAfterPhoto(files, html, screen.js).replace(EMPTY_ROOT, `<div id="root">${firstScreen}</div>`);
  }
  return html;
}
