/**
 * Draws the demo catalogue's product images and renders them to assets/demo-images/<slug>.webp.
 *
 *   npx tsx tools/make-demo-images.ts            # every image, plus sample.webp
 *   npx tsx tools/make-demo-images.ts --png DIR  # also write PNG copies to DIR, to look at them
 *
 * Every image is a flat illustration drawn here as SVG (no fonts, no network) on a soft background
 * colour of the product's category, rendered by sharp at 640x640. Drawing functions are shared per
 * kind of object and take colour variants; `drawings` maps each demo product's slug to one of them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { demoProducts } from '../src/server/db/demo-catalogue.js';
import { WEBP_QUALITY } from '../src/server/domain/images.js';
import { demoImagesDir } from '../src/server/paths.js';

const SIZE = 640;
const MAX_BYTES = 40 * 1024;

// ---------------------------------------------------------------------------------------------
// Helpers

type Rgb = [number, number, number];

function toRgb(hex: string): Rgb {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b]
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** Blends colour a towards colour b by t (0..1). */
function mix(a: string, b: string, t: number): string {
  const ca = toRgb(a);
  const cb = toRgb(b);
  return toHex([ca[0] + (cb[0] - ca[0]) * t, ca[1] + (cb[1] - ca[1]) * t, ca[2] + (cb[2] - ca[2]) * t]);
}
const darken = (c: string, t: number): string => mix(c, '#000000', t);
const lighten = (c: string, t: number): string => mix(c, '#ffffff', t);

/** Ids for gradients, clips and patterns; unique within one image. */
let idCounter = 0;
const uid = (prefix: string): string => `${prefix}${++idCounter}`;

/** A left-to-right (or custom direction) linear gradient; returns [defs, url]. */
function linear(stops: Array<[number, string]>, x2 = 1, y2 = 0): [string, string] {
  const id = uid('g');
  const s = stops.map(([o, c]) => `<stop offset="${o}" stop-color="${c}"/>`).join('');
  return [`<defs><linearGradient id="${id}" x1="0" y1="0" x2="${x2}" y2="${y2}">${s}</linearGradient></defs>`, `url(#${id})`];
}

/** A cylinder-like horizontal shading of one colour: dark edge, light highlight, dark edge. */
function cylinder(c: string): [string, string] {
  return linear([
    [0, darken(c, 0.18)],
    [0.28, lighten(c, 0.18)],
    [0.55, c],
    [1, darken(c, 0.25)],
  ]);
}

const rect = (x: number, y: number, w: number, h: number, rx: number, fill: string, extra = ''): string =>
  `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${rx}" fill="${fill}" ${extra}/>`;
const circle = (cx: number, cy: number, r: number, fill: string, extra = ''): string =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}" ${extra}/>`;
const ellipse = (cx: number, cy: number, rx: number, ry: number, fill: string, extra = ''): string =>
  `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="${fill}" ${extra}/>`;
const pathEl = (d: string, fill: string, extra = ''): string => `<path d="${d}" fill="${fill}" ${extra}/>`;
const stroke = (d: string, color: string, width: number, extra = ''): string =>
  `<path d="${d}" fill="none" stroke="${color}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round" ${extra}/>`;

/** The soft shadow an object casts on the floor. */
const shadow = (cx: number, cy: number, rx: number): string => ellipse(cx, cy, rx, rx * 0.11, '#000000', 'opacity="0.10"');

/** A few short bars that read as a printed label without any words. */
function labelLines(x: number, y: number, widths: number[], color: string, height = 10, gap = 8): string {
  return widths.map((w, i) => rect(x - w / 2, y + i * (height + gap), w, height, height / 2, color)).join('');
}

/** A zig-zag crimped seal along a horizontal edge (packets and bags). */
function crimp(x1: number, x2: number, y: number, h: number, fill: string): string {
  let d = `M${x1},${y + h}`;
  const steps = Math.round((x2 - x1) / 12);
  for (let i = 0; i <= steps; i++) d += ` L${x1 + (i * (x2 - x1)) / steps},${i % 2 === 0 ? y : y + 5}`;
  d += ` L${x2},${y + h} Z`;
  const lines = Array.from({ length: steps - 1 }, (_, i) => {
    const x = x1 + ((i + 1) * (x2 - x1)) / steps;
    return `M${x},${y + 8} L${x},${y + h - 4}`;
  }).join(' ');
  return pathEl(d, fill) + stroke(lines, darken(fill, 0.12), 2);
}

/** A maize cob with leaves, the mark of flour and corn oil. */
function maizeIcon(cx: number, cy: number, s: number): string {
  const kernels: string[] = [];
  for (let row = -4; row <= 4; row++) {
    for (let col = -1; col <= 1; col++) {
      const w = Math.cos((row / 5) * (Math.PI / 2));
      kernels.push(ellipse(cx + col * 12 * s * w, cy + row * 12 * s, 5.5 * s * w, 5.5 * s, '#E9A900'));
    }
  }
  return (
    ellipse(cx, cy, 26 * s, 58 * s, '#F7C52B') +
    kernels.join('') +
    pathEl(
      `M${cx},${cy + 60 * s} C${cx - 50 * s},${cy + 40 * s} ${cx - 50 * s},${cy - 20 * s} ${cx - 34 * s},${cy - 52 * s} C${cx - 30 * s},${cy - 10 * s} ${cx - 18 * s},${cy + 20 * s} ${cx},${cy + 60 * s} Z`,
      '#3C9A3F',
    ) +
    pathEl(
      `M${cx},${cy + 60 * s} C${cx + 50 * s},${cy + 40 * s} ${cx + 50 * s},${cy - 20 * s} ${cx + 34 * s},${cy - 52 * s} C${cx + 30 * s},${cy - 10 * s} ${cx + 18 * s},${cy + 20 * s} ${cx},${cy + 60 * s} Z`,
      '#2F8A34',
    )
  );
}

/** A simple leaf pointing up-right, centred at (cx, cy). */
function leaf(cx: number, cy: number, s: number, rot: number, fill: string): string {
  return `<g transform="translate(${cx} ${cy}) rotate(${rot}) scale(${s})">${pathEl('M0,-40 C28,-20 28,20 0,40 C-28,20 -28,-20 0,-40 Z', fill)}${stroke('M0,-32 L0,36', darken(fill, 0.25), 3)}</g>`;
}

// ---------------------------------------------------------------------------------------------
// Drawings, one function per kind of object

function phone(o: { body: string; wallA: string; wallB: string; camera: 'column' | 'square' }): string {
  const [wallDefs, wall] = linear(
    [
      [0, o.wallA],
      [1, o.wallB],
    ],
    0.4,
    1,
  );
  const back = darken(o.body, 0.1);
  const lens = (x: number, y: number, r: number): string =>
    circle(x, y, r, '#2a2d33') + circle(x, y, r * 0.55, '#0d0f12') + circle(x - r * 0.2, y - r * 0.2, r * 0.18, '#6b7280');
  const camera =
    o.camera === 'column'
      ? lens(192, 160, 17) + lens(192, 204, 17) + lens(192, 248, 17) + circle(228, 162, 6, '#f5f0d6')
      : rect(168, 132, 100, 100, 26, darken(o.body, 0.22)) +
        lens(196, 160, 17) +
        lens(240, 160, 17) +
        lens(196, 204, 17) +
        circle(240, 204, 7, '#f5f0d6');
  return (
    wallDefs +
    shadow(330, 548, 190) +
    // the back of a second phone, behind
    `<g transform="rotate(-9 250 330)">` +
    rect(148, 112, 206, 428, 34, back) +
    rect(148, 112, 206, 428, 34, 'none', `stroke="${darken(o.body, 0.25)}" stroke-width="4"`) +
    rect(160, 124, 20, 404, 10, lighten(o.body, 0.18), 'opacity="0.5"') +
    camera +
    rect(226, 470, 50, 10, 5, lighten(o.body, 0.35)) +
    `</g>` +
    // the front of the phone
    rect(292, 100, 214, 444, 36, o.body) +
    rect(299, 107, 200, 430, 30, '#111317') +
    rect(307, 115, 184, 414, 24, wall) +
    pathEl(
      'M307,330 C360,290 420,360 491,300 L491,505 Q491,529 467,529 L331,529 Q307,529 307,505 Z',
      '#ffffff',
      'opacity="0.16"',
    ) +
    pathEl(
      'M307,400 C370,360 430,430 491,380 L491,505 Q491,529 467,529 L331,529 Q307,529 307,505 Z',
      '#ffffff',
      'opacity="0.14"',
    ) +
    circle(399, 134, 7, '#08090b') +
    rect(335, 175, 110, 26, 8, '#ffffff', 'opacity="0.85"') +
    rect(335, 209, 70, 10, 5, '#ffffff', 'opacity="0.6"') +
    [335, 375, 415, 455].map((x) => rect(x - 14, 478, 30, 30, 9, '#ffffff', 'opacity="0.78"')).join('') +
    rect(506, 190, 6, 60, 3, darken(o.body, 0.25)) +
    rect(506, 270, 6, 34, 3, darken(o.body, 0.25))
  );
}

function tv(o: { width: number; bezel: string; skyA: string; skyB: string; hill: string; stand: 'feet' | 'pedestal' }): string {
  const w = o.width;
  const h = Math.round((w * 9) / 16);
  const x = 320 - w / 2;
  const y = 292 - h / 2;
  const clip = uid('c');
  const [skyDefs, sky] = linear(
    [
      [0, o.skyA],
      [1, o.skyB],
    ],
    0,
    1,
  );
  const bottom = y + h;
  const stand =
    o.stand === 'feet'
      ? stroke(`M${x + 50},${bottom} L${x + 30},${bottom + 52}`, '#2b2e35', 12) +
        stroke(`M${x + w - 50},${bottom} L${x + w - 30},${bottom + 52}`, '#2b2e35', 12)
      : rect(300, bottom, 40, 34, 4, '#3a3d45') + rect(230, bottom + 32, 180, 16, 8, '#2b2e35');
  return (
    skyDefs +
    `<defs><clipPath id="${clip}"><rect x="${x + 10}" y="${y + 10}" width="${w - 20}" height="${h - 20}" rx="3"/></clipPath></defs>` +
    shadow(320, bottom + 56, w / 2 + 10) +
    stand +
    rect(x, y, w, h, 10, o.bezel) +
    `<g clip-path="url(#${clip})">` +
    rect(x, y, w, h, 0, sky) +
    circle(x + w * 0.7, y + h * 0.38, h * 0.13, '#FFE8A3') +
    pathEl(
      `M${x},${y + h * 0.7} C${x + w * 0.25},${y + h * 0.45} ${x + w * 0.45},${y + h * 0.55} ${x + w * 0.6},${y + h * 0.68} C${x + w * 0.75},${y + h * 0.52} ${x + w * 0.9},${y + h * 0.55} ${x + w},${y + h * 0.62} L${x + w},${bottom} L${x},${bottom} Z`,
      o.hill,
    ) +
    pathEl(
      `M${x},${y + h * 0.85} C${x + w * 0.3},${y + h * 0.7} ${x + w * 0.6},${y + h * 0.78} ${x + w},${y + h * 0.8} L${x + w},${bottom} L${x},${bottom} Z`,
      darken(o.hill, 0.2),
    ) +
    pathEl(
      `M${x + w * 0.55},${y + 10} L${x + w * 0.85},${y + 10} L${x + w * 0.45},${bottom} L${x + w * 0.15},${bottom} Z`,
      '#ffffff',
      'opacity="0.07"',
    ) +
    `</g>` +
    rect(316, bottom - 8, 8, 4, 2, '#9aa0a8')
  );
}

function earbuds(o: { shell: string; tip: string }): string {
  const edge = darken(o.shell, 0.16);
  const bud = (cx: number, cy: number, rot: number, side: number): string =>
    `<g transform="translate(${cx} ${cy}) rotate(${rot}) scale(${side} 1)">` +
    rect(-20, 0, 40, 110, 20, o.shell, `stroke="${edge}" stroke-width="3"`) +
    ellipse(-36, -8, 22, 26, o.tip) +
    ellipse(0, 0, 50, 46, o.shell, `stroke="${edge}" stroke-width="3"`) +
    ellipse(12, -12, 22, 16, '#ffffff', 'opacity="0.7"') +
    rect(-12, 92, 24, 10, 5, darken(o.shell, 0.3)) +
    `</g>`;
  return (
    shadow(320, 500, 200) +
    bud(210, 196, 18, 1) +
    bud(430, 196, -18, -1) +
    rect(190, 330, 260, 170, 80, o.shell, `stroke="${edge}" stroke-width="4"`) +
    stroke('M194,392 L446,392', edge, 4) +
    rect(206, 340, 228, 40, 20, lighten(o.shell, 0.5), 'opacity="0.5"') +
    circle(320, 432, 6, '#4ade80') +
    rect(296, 470, 48, 10, 5, edge)
  );
}

function wiredEarphones(o: { color: string; accent: string }): string {
  const head = (cx: number, cy: number, rot: number): string =>
    `<g transform="translate(${cx} ${cy}) rotate(${rot})">` +
    rect(-16, 20, 32, 70, 14, o.color) +
    circle(0, 0, 44, o.color) +
    ellipse(-28, -4, 22, 26, o.accent) +
    circle(12, -10, 12, lighten(o.color, 0.25)) +
    `</g>`;
  return (
    shadow(320, 545, 150) +
    stroke('M196,250 C200,340 260,380 320,392', o.color, 8) +
    stroke('M444,250 C440,340 380,380 320,392', o.color, 8) +
    stroke('M320,392 C320,430 300,460 330,490', o.color, 9) +
    rect(306, 380, 28, 44, 10, o.accent) +
    rect(314, 486, 32, 26, 6, o.color, 'transform="rotate(20 330 500)"') +
    rect(324, 510, 12, 34, 3, '#c9ced6', 'transform="rotate(20 330 500)"') +
    head(190, 180, 18) +
    head(450, 180, -18)
  );
}

function powerBank(o: { body: string; led: string }): string {
  const [defs, fill] = linear(
    [
      [0, lighten(o.body, 0.12)],
      [1, darken(o.body, 0.12)],
    ],
    1,
    1,
  );
  return (
    defs +
    shadow(320, 530, 170) +
    stroke('M420,150 C500,110 560,200 520,280 C490,340 540,400 520,460', '#2b2e35', 10) +
    rect(505, 455, 30, 56, 6, '#2b2e35') +
    rect(511, 505, 18, 20, 3, '#c9ced6') +
    rect(190, 130, 260, 390, 40, darken(o.body, 0.25)) +
    rect(182, 122, 260, 390, 40, fill) +
    rect(396, 132, 34, 16, 4, '#1c1e22') +
    rect(232, 132, 40, 14, 4, '#1c1e22') +
    rect(282, 132, 40, 14, 4, '#1c1e22') +
    pathEl('M322,230 L282,320 L314,320 L298,392 L352,294 L320,294 L340,230 Z', lighten(o.body, 0.55), 'opacity="0.9"') +
    [0, 1, 2, 3].map((i) => circle(272 + i * 32, 450, 8, i < 3 ? o.led : lighten(o.body, 0.3))).join('')
  );
}

function solarLamp(o: { body: string; panel: string }): string {
  const glowId = uid('r');
  return (
    `<defs><radialGradient id="${glowId}"><stop offset="0" stop-color="#FFF6C7" stop-opacity="0.95"/><stop offset="1" stop-color="#FFF6C7" stop-opacity="0"/></radialGradient></defs>` +
    shadow(330, 525, 230) +
    // panel and cable
    stroke('M340,470 C380,500 420,480 440,450', '#2b2e35', 7) +
    pathEl('M380,300 L560,280 L590,470 L410,500 Z', '#c9ced6') +
    pathEl('M390,310 L552,292 L579,462 L418,490 Z', o.panel) +
    stroke('M444,304 L472,484 M498,298 L526,476 M397,369 L563,348 M405,430 L572,407', lighten(o.panel, 0.3), 3) +
    // lamp
    circle(230, 330, 150, `url(#${glowId})`) +
    stroke('M170,200 C170,110 290,110 290,200', darken(o.body, 0.3), 16) +
    rect(150, 190, 160, 300, 30, o.body) +
    rect(150, 190, 30, 300, 15, lighten(o.body, 0.25), 'opacity="0.6"') +
    rect(172, 230, 116, 150, 20, '#FFF3B0') +
    rect(184, 242, 92, 126, 14, '#FFFBE3') +
    rect(172, 400, 116, 66, 14, '#2b2e35') +
    circle(205, 433, 12, o.body) +
    rect(232, 425, 40, 16, 6, '#6b7280')
  );
}

function radio(o: { body: string; trim: string }): string {
  const dots = uid('p');
  return (
    `<defs><pattern id="${dots}" width="16" height="16" patternUnits="userSpaceOnUse"><circle cx="8" cy="8" r="4" fill="#1c1e22"/></pattern></defs>` +
    shadow(320, 505, 210) +
    stroke('M470,240 L560,110', '#9aa0a8', 6) +
    circle(560, 110, 8, '#9aa0a8') +
    stroke('M200,240 C200,160 440,160 440,240', darken(o.body, 0.3), 20) +
    rect(120, 230, 400, 260, 36, o.body) +
    rect(120, 230, 400, 40, 20, lighten(o.body, 0.15)) +
    circle(240, 372, 92, darken(o.body, 0.3)) +
    circle(240, 372, 80, o.trim) +
    circle(240, 372, 80, `url(#${dots})`) +
    circle(240, 372, 20, darken(o.body, 0.3)) +
    rect(356, 282, 132, 56, 10, '#E9EDD8') +
    stroke(
      'M370,326 L474,326 M372,300 L372,322 M392,310 L392,322 M412,300 L412,322 M432,310 L432,322 M452,300 L452,322 M472,310 L472,322',
      '#6b7280',
      2,
    ) +
    stroke('M424,290 L424,332', '#DC2626', 3) +
    circle(386, 398, 24, darken(o.body, 0.35)) +
    circle(386, 398, 16, o.trim) +
    circle(458, 398, 24, darken(o.body, 0.35)) +
    circle(458, 398, 16, o.trim) +
    rect(362, 446, 30, 12, 4, darken(o.body, 0.35)) +
    rect(400, 446, 30, 12, 4, darken(o.body, 0.35)) +
    rect(438, 446, 30, 12, 4, darken(o.body, 0.35)) +
    circle(150, 258, 10, '#FFE8A3')
  );
}

function toaster(o: { body: string }): string {
  const [defs, fill] = cylinder(o.body);
  const toast = (x: number): string =>
    pathEl(
      `M${x},270 L${x},190 C${x - 10},150 ${x + 20},135 ${x + 40},150 C${x + 60},135 ${x + 90},150 ${x + 80},190 L${x + 80},270 Z`,
      '#D9A35B',
    ) +
    pathEl(
      `M${x + 10},270 L${x + 10},194 C${x + 4},162 ${x + 24},152 ${x + 40},164 C${x + 56},152 ${x + 76},162 ${x + 70},194 L${x + 70},270 Z`,
      '#F3D9A4',
    );
  return (
    defs +
    shadow(320, 505, 210) +
    toast(220) +
    toast(340) +
    rect(140, 240, 360, 255, 70, fill) +
    rect(170, 252, 300, 12, 6, '#ffffff', 'opacity="0.45"') +
    rect(500, 300, 26, 40, 8, '#2b2e35') +
    rect(490, 300, 18, 150, 6, darken(o.body, 0.3)) +
    circle(400, 420, 24, '#2b2e35') +
    rect(397, 400, 6, 16, 3, '#e5e7eb') +
    rect(210, 400, 110, 16, 8, darken(o.body, 0.2)) +
    rect(180, 488, 40, 14, 5, '#2b2e35') +
    rect(420, 488, 40, 14, 5, '#2b2e35')
  );
}

function blender(o: { base: string; drink: string }): string {
  const clip = uid('c');
  const jar = 'M228,170 L412,170 L390,420 L250,420 Z';
  return (
    `<defs><clipPath id="${clip}"><path d="${jar}"/></clipPath></defs>` +
    shadow(320, 528, 150) +
    stroke('M404,200 L462,212 C476,215 478,226 476,240 L462,360 C460,374 452,380 440,380 L396,380', darken(o.base, 0.1), 20) +
    pathEl(jar, '#DDEFF7', 'opacity="0.75"') +
    `<g clip-path="url(#${clip})">` +
    rect(200, 290, 240, 140, 0, o.drink) +
    pathEl('M200,290 C250,276 300,304 340,288 C380,274 410,294 440,286 L440,300 L200,300 Z', lighten(o.drink, 0.25)) +
    rect(248, 160, 26, 270, 0, '#ffffff', 'opacity="0.35"') +
    `</g>` +
    pathEl(jar, 'none', 'stroke="#9fb7c4" stroke-width="5"') +
    stroke('M372,200 L392,200 M370,240 L388,240 M366,280 L384,280', '#9fb7c4', 4) +
    rect(218, 146, 204, 30, 12, '#2b2e35') +
    rect(296, 126, 48, 24, 8, '#2b2e35') +
    pathEl('M242,418 L398,418 L430,515 Q432,525 420,525 L220,525 Q208,525 210,515 Z', o.base) +
    rect(238, 412, 164, 18, 6, darken(o.base, 0.25)) +
    circle(320, 472, 26, lighten(o.base, 0.85)) +
    rect(316, 452, 8, 18, 4, darken(o.base, 0.4))
  );
}

function kettle(o: { body: string; accent: string }): string {
  const [defs, fill] = cylinder(o.body);
  return (
    defs +
    shadow(320, 528, 190) +
    rect(170, 478, 290, 38, 14, '#2b2e35') +
    stroke('M402,196 C500,196 500,200 500,260 L480,440', o.accent, 26) +
    pathEl('M222,236 L168,190 L150,196 L210,300 Z', darken(o.body, 0.08)) +
    pathEl(
      'M230,196 L410,196 C425,300 440,400 452,470 Q454,486 438,486 L202,486 Q186,486 188,470 C200,400 215,300 230,196 Z',
      fill,
    ) +
    ellipse(320, 196, 92, 20, lighten(o.body, 0.2)) +
    rect(296, 166, 48, 26, 10, o.accent) +
    rect(250, 290, 32, 150, 16, '#BFE3F5', `stroke="${darken(o.body, 0.25)}" stroke-width="3"`) +
    rect(256, 360, 20, 74, 10, '#7EC3E6') +
    rect(440, 430, 26, 16, 6, '#EF4444') +
    rect(300, 230, 40, 8, 4, '#ffffff', 'opacity="0.5"')
  );
}

function sufurias(): string {
  const metal: Array<[number, string]> = [
    [0, '#8E979F'],
    [0.3, '#EEF1F4'],
    [0.6, '#C3CAD0'],
    [1, '#848D96'],
  ];
  /** A handle-less aluminium sufuria with a rolled lip; `lid` puts a flat lid with a knob on it. */
  const pot = (cx: number, base: number, w: number, h: number, lid: boolean): string => {
    const [defs, fill] = linear(metal);
    const top = base - h;
    const ry = w * 0.15;
    const inside = ellipse(cx, top, w / 2, ry, '#6F7880') + ellipse(cx, top + ry * 0.4, w / 2 - 10, ry * 0.6, '#596168');
    const cover =
      ellipse(cx, top + 4, w / 2 + 6, ry + 4, '#9AA3AB') +
      ellipse(cx, top, w / 2 + 6, ry + 4, fill) +
      ellipse(cx, top - 4, w / 2 - 24, ry - 8, '#ffffff', 'opacity="0.35"') +
      rect(cx - 26, top - 22, 52, 18, 8, '#2b2e35') +
      rect(cx - 10, top - 8, 20, 8, 2, '#4B5563');
    return (
      defs +
      pathEl(
        `M${cx - w / 2},${top} L${cx - w / 2},${base} A${w / 2},${ry} 0 0 0 ${cx + w / 2},${base} L${cx + w / 2},${top} Z`,
        fill,
      ) +
      ellipse(cx, top, w / 2 + 5, ry + 3, 'none', 'stroke="#7E878F" stroke-width="5"') +
      (lid ? cover : inside + ellipse(cx, top, w / 2 + 2, ry + 1, 'none', 'stroke="#F1F4F6" stroke-width="6"'))
    );
  };
  return shadow(320, 506, 260) + pot(330, 400, 300, 150, true) + pot(186, 478, 210, 104, false) + pot(460, 488, 170, 86, false);
}

function flask(o: { body: string; flower: string; centre: string }): string {
  const [defs, fill] = cylinder(o.body);
  const [cDefs, chrome] = cylinder('#C9CED6');
  const flower = (x: number, y: number, r: number): string =>
    [0, 72, 144, 216, 288]
      .map((a) => circle(x + Math.cos((a * Math.PI) / 180) * r, y + Math.sin((a * Math.PI) / 180) * r, r * 0.8, o.flower))
      .join('') + circle(x, y, r * 0.6, o.centre);
  return (
    defs +
    cDefs +
    shadow(320, 520, 150) +
    stroke('M390,230 C460,230 462,250 462,300 L462,380 C462,420 440,430 398,430', darken(o.body, 0.3), 22) +
    pathEl('M250,200 L390,200 L400,500 L240,500 Z', fill) +
    pathEl('M260,200 C260,170 280,160 290,150 L350,150 C360,160 380,170 380,200 Z', chrome) +
    rect(274, 100, 92, 56, 14, darken(o.body, 0.25)) +
    rect(236, 484, 168, 30, 10, chrome) +
    flower(290, 300, 22) +
    flower(356, 360, 26) +
    flower(282, 420, 18) +
    leaf(330, 300, 0.45, 40, '#3C9A3F') +
    leaf(320, 420, 0.45, -40, '#3C9A3F')
  );
}

function jerrycan(o: { body: string }): string {
  const side = darken(o.body, 0.14);
  return (
    shadow(320, 532, 220) +
    pathEl(
      `M200,130 L380,130 Q396,130 396,146 L396,210 L184,210 L184,146 Q184,130 200,130 Z M228,156 L352,156 Q362,156 362,166 L362,176 Q362,186 352,186 L228,186 Q218,186 218,176 L218,166 Q218,156 228,156 Z`,
      side,
      'fill-rule="evenodd"',
    ) +
    rect(396, 136, 46, 48, 6, side) +
    rect(388, 110, 62, 34, 8, darken(o.body, 0.35)) +
    rect(160, 190, 320, 330, 30, o.body) +
    rect(436, 190, 44, 330, 22, side) +
    rect(196, 240, 220, 240, 22, darken(o.body, 0.07)) +
    stroke('M214,258 L398,462 M398,258 L214,462', lighten(o.body, 0.25), 12) +
    rect(260, 330, 92, 60, 10, lighten(o.body, 0.5))
  );
}

function gasCylinder(o: { body: string; band: string; grill: boolean }): string {
  const [defs, fill] = cylinder(o.body);
  const top = o.grill ? 250 : 200;
  const flame = (x: number): string =>
    pathEl(`M${x},150 C${x - 10},166 ${x - 8},178 ${x},180 C${x + 8},178 ${x + 10},166 ${x},150 Z`, '#3B82F6', 'opacity="0.9"');
  const grill = o.grill
    ? // burner head on the valve, blue flames, and a three-legged pan support standing on the shoulder
      rect(300, 178, 40, 34, 6, '#C9A227') +
      [262, 291, 320, 349, 378].map(flame).join('') +
      ellipse(320, 182, 72, 16, '#1F2937') +
      ellipse(320, 178, 56, 9, '#4B5563') +
      stroke('M196,150 L226,268 M444,150 L414,268', '#1F2937', 11) +
      ellipse(320, 150, 128, 26, 'none', 'stroke="#1F2937" stroke-width="10"') +
      stroke('M214,138 L244,150 M426,138 L396,150 M320,124 L320,142', '#1F2937', 8)
    : rect(300, 134, 40, 30, 6, '#C9A227') + rect(312, 120, 16, 20, 4, '#9C7C14');
  return (
    defs +
    shadow(320, 530, 160) +
    pathEl(
      `M260,${top - 60} L380,${top - 60} L380,${top + 20} L260,${top + 20} Z M282,${top - 44} L358,${top - 44} L358,${top - 10} L282,${top - 10} Z`,
      darken(o.body, 0.2),
      'fill-rule="evenodd"',
    ) +
    grill +
    rect(210, top, 220, 520 - top - 14, 70, fill) +
    rect(222, 500, 196, 26, 8, darken(o.body, 0.3)) +
    rect(210, top + (520 - top) * 0.38, 220, 70, 0, o.band) +
    circle(320, top + (520 - top) * 0.38 + 35, 24, o.body) +
    circle(320, top + (520 - top) * 0.38 + 35, 12, o.band)
  );
}

function flourBag(o: { paper: string; band: string; accent: string }): string {
  return (
    shadow(320, 530, 170) +
    crimp(186, 454, 130, 34, darken(o.paper, 0.06)) +
    rect(180, 160, 280, 364, 14, o.paper) +
    rect(180, 160, 24, 364, 10, darken(o.paper, 0.07)) +
    rect(436, 160, 24, 364, 10, darken(o.paper, 0.07)) +
    circle(320, 272, 82, lighten(o.accent, 0.85)) +
    maizeIcon(320, 272, 1.05) +
    rect(180, 376, 280, 96, 0, o.band) +
    labelLines(320, 396, [150, 96], lighten(o.band, 0.75), 16, 14) +
    circle(406, 478, 30, o.accent) +
    circle(406, 478, 20, lighten(o.accent, 0.3))
  );
}

function teaPacket(o: { box: string; band: string }): string {
  return (
    shadow(330, 528, 170) +
    pathEl('M200,170 L250,140 L470,140 L420,170 Z', lighten(o.box, 0.2)) +
    pathEl('M420,170 L470,140 L470,482 L420,512 Z', darken(o.box, 0.25)) +
    rect(200, 170, 220, 342, 0, o.box) +
    rect(200, 400, 220, 58, 0, o.band) +
    labelLines(310, 414, [120, 70], lighten(o.band, 0.7), 12, 10) +
    // a cup of chai with steam, and a sprig of tea leaves
    stroke('M290,206 C280,222 300,232 290,248 M318,200 C308,218 328,228 318,246', '#ffffff', 5, 'opacity="0.8"') +
    pathEl('M252,262 L358,262 C358,310 340,340 305,340 C270,340 252,310 252,262 Z', '#ffffff') +
    stroke('M356,278 C384,278 384,318 348,316', '#ffffff', 8) +
    ellipse(305, 346, 72, 12, '#ffffff') +
    ellipse(305, 266, 50, 8, '#8B4A1E') +
    leaf(384, 226, 0.6, 35, '#3C9A3F') +
    leaf(366, 196, 0.5, -20, '#2F8A34')
  );
}

function coffeeBag(o: { bag: string; label: string }): string {
  const bean = (x: number, y: number, rot: number, s: number): string =>
    `<g transform="translate(${x} ${y}) rotate(${rot}) scale(${s})">${ellipse(0, 0, 16, 22, '#5B3417')}${stroke('M0,-18 C-8,-6 8,6 0,18', '#2E190A', 3)}</g>`;
  return (
    shadow(320, 532, 200) +
    crimp(206, 434, 120, 40, darken(o.bag, 0.08)) +
    pathEl(
      'M200,156 L440,156 C448,300 456,420 466,510 Q468,524 454,524 L186,524 Q172,524 174,510 C184,420 192,300 200,156 Z',
      o.bag,
    ) +
    rect(200, 156, 240, 14, 0, darken(o.bag, 0.18)) +
    circle(320, 200, 12, darken(o.bag, 0.3)) +
    rect(232, 250, 176, 200, 20, o.label) +
    `<g transform="translate(320 320) rotate(-25)">${ellipse(0, 0, 40, 54, '#6F4120')}${stroke('M0,-46 C-18,-14 18,14 0,46', '#3B200C', 6)}</g>` +
    labelLines(320, 400, [120, 80], darken(o.label, 0.35), 10, 10) +
    bean(150, 508, 30, 1) +
    bean(186, 520, -20, 0.9) +
    bean(486, 512, 60, 1) +
    bean(520, 500, 10, 0.85)
  );
}

function sugarPacket(o: { band: string }): string {
  const cube = (x: number, y: number, s: number): string =>
    `<g transform="translate(${x} ${y}) scale(${s})">` +
    pathEl('M0,-30 L34,-14 L0,2 L-34,-14 Z', '#ffffff') +
    pathEl('M-34,-14 L0,2 L0,40 L-34,24 Z', '#E5E7EB') +
    pathEl('M34,-14 L0,2 L0,40 L34,24 Z', '#D1D5DB') +
    `</g>`;
  return (
    shadow(320, 530, 170) +
    crimp(190, 450, 126, 30, '#E8ECEF') +
    pathEl('M186,496 L454,496 L454,526 L186,526 Z', '#E8ECEF') +
    rect(182, 152, 276, 350, 18, '#F7F9FB') +
    rect(182, 152, 276, 350, 18, 'none', 'stroke="#DDE2E7" stroke-width="3"') +
    circle(320, 262, 82, lighten(o.band, 0.55)) +
    cube(286, 282, 1.1) +
    cube(356, 282, 1.1) +
    cube(320, 232, 1.1) +
    rect(182, 374, 276, 90, 0, o.band) +
    labelLines(320, 394, [150, 90], lighten(o.band, 0.75), 16, 14) +
    rect(196, 170, 16, 300, 8, '#ffffff', 'opacity="0.8"')
  );
}

function oilBottle(o: { size: 'large' | 'small'; cap: string; label: string; icon: 'sunflower' | 'maize' }): string {
  const [defs, oil] = linear([
    [0, '#D99A00'],
    [0.3, '#FFD23F'],
    [0.65, '#F4B400'],
    [1, '#C98A00'],
  ]);
  const large = o.size === 'large';
  const x1 = large ? 186 : 240;
  const x2 = large ? 454 : 400;
  const body =
    `M${x1 + 20},250 C${x1},262 ${x1},280 ${x1},300 L${x1},500 Q${x1},522 ${x1 + 22},522 L${x2 - 22},522 Q${x2},522 ${x2},500 L${x2},300 C${x2},280 ${x2 - 20},262 ${x2 - 40},250 ` +
    `L${large ? 360 : 350},190 L${large ? 280 : 290},190 Z`;
  const handle = large
    ? stroke('M372,214 C470,200 504,236 504,286 C504,330 484,346 450,346', '#D99A00', 26) +
      stroke('M372,214 C470,200 504,236 504,286 C504,330 484,346 450,346', '#FFD23F', 12)
    : '';
  const sunflower =
    [0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330]
      .map((a) => ellipse(320, 360, 10, 34, '#FFC62B', `transform="rotate(${a} 320 360)" stroke="#E39E00" stroke-width="2"`))
      .join('') + circle(320, 360, 22, '#6B3E12');
  return (
    defs +
    shadow(320, 532, (x2 - x1) / 2 + 30) +
    handle +
    pathEl(body, oil) +
    rect(x1 + 24, 300, 16, 190, 8, '#ffffff', 'opacity="0.4"') +
    rect(large ? 276 : 286, 150, large ? 88 : 68, 44, 10, o.cap) +
    rect(large ? 270 : 280, 186, large ? 100 : 80, 14, 5, darken(o.cap, 0.2)) +
    rect(x1, 300, x2 - x1, 140, 0, o.label) +
    circle(320, 360, 52, '#ffffff', 'opacity="0.92"') +
    (o.icon === 'sunflower' ? sunflower : maizeIcon(320, 360, 0.72)) +
    rect(x1, 420, x2 - x1, 20, 0, darken(o.label, 0.25))
  );
}

function kikoi(o: { stripes: string[] }): string {
  const clip = uid('c');
  const [x1, x2, y1, y2] = [140, 500, 176, 456];
  const band = (y2 - y1) / o.stripes.length;
  const bands = o.stripes.map((c, i) => rect(x1 - 10, y1 - 20 + i * band, x2 - x1 + 20, band + 1, 0, c)).join('');
  const cloth = `M${x1},${y1} C${x1 + 100},${y1 - 18} ${x1 + 220},${y1 + 16} ${x2},${y1 - 4} L${x2},${y2} C${x2 - 120},${y2 + 16} ${x1 + 120},${y2 - 16} ${x1},${y2} Z`;
  const fringe = (x: number, y0: number, y3: number, dir: number): string =>
    stroke(
      Array.from({ length: 24 }, (_, i) => {
        const y = y0 + 6 + (i * (y3 - y0 - 12)) / 23;
        return `M${x},${y} L${x + dir * 34},${y + 4}`;
      }).join(' '),
      darken('#E9D8B0', 0.1),
      4,
    );
  return (
    `<defs><clipPath id="${clip}"><path d="${cloth}"/></clipPath></defs>` +
    shadow(320, 492, 250) +
    `<g transform="rotate(-4 320 320)">` +
    fringe(x1, y1, y2, -1) +
    fringe(x2, y1 - 4, y2, 1) +
    `<g clip-path="url(#${clip})">` +
    bands +
    rect(300, 150, 56, 330, 0, '#000000', 'opacity="0.10"') +
    rect(356, 150, 12, 330, 0, '#ffffff', 'opacity="0.14"') +
    `</g></g>`
  );
}

function kanga(o: { field: string; border: string; motif: string; back: string }): string {
  const cloth = (field: string, border: string, motif: string): string => {
    const dots =
      Array.from({ length: 9 }, (_, i) => circle(170 + i * 37.5, 192, 8, motif) + circle(170 + i * 37.5, 448, 8, motif)).join(
        '',
      ) + Array.from({ length: 6 }, (_, i) => circle(172, 230 + i * 36, 8, motif) + circle(468, 230 + i * 36, 8, motif)).join('');
    const petals = [0, 45, 90, 135, 180, 225, 270, 315]
      .map((a) => ellipse(320, 280, 16, 38, motif, `transform="rotate(${a} 320 320)"`))
      .join('');
    return (
      rect(140, 170, 360, 300, 8, border) +
      dots +
      rect(190, 216, 260, 208, 4, field) +
      circle(320, 320, 70, lighten(field, 0.3)) +
      petals +
      circle(320, 320, 22, border) +
      [
        [220, 246],
        [420, 246],
        [220, 394],
        [420, 394],
      ]
        .map(([x, y]) => circle(x ?? 0, y ?? 0, 14, motif))
        .join('')
    );
  };
  return (
    shadow(320, 500, 230) +
    `<g transform="rotate(8 320 320) translate(30 12)">${cloth(o.back, darken(o.back, 0.3), lighten(o.back, 0.5))}</g>` +
    `<g transform="rotate(-5 320 320) translate(-18 -6)">${cloth(o.field, o.border, o.motif)}</g>`
  );
}

function shuka(o: { base: string; stripeA: string; stripeB: string }): string {
  const check = uid('p');
  const pattern =
    `<defs><pattern id="${check}" width="80" height="80" patternUnits="userSpaceOnUse">` +
    rect(0, 0, 80, 80, 0, o.base) +
    rect(10, 0, 14, 80, 0, o.stripeA, 'opacity="0.55"') +
    rect(0, 10, 80, 14, 0, o.stripeA, 'opacity="0.55"') +
    rect(44, 0, 5, 80, 0, o.stripeB, 'opacity="0.7"') +
    rect(0, 44, 80, 5, 0, o.stripeB, 'opacity="0.7"') +
    rect(60, 0, 5, 80, 0, o.stripeB, 'opacity="0.7"') +
    rect(0, 60, 80, 5, 0, o.stripeB, 'opacity="0.7"') +
    `</pattern></defs>`;
  const fill = `url(#${check})`;
  const fringe = stroke(Array.from({ length: 30 }, (_, i) => `M${160 + i * 11},468 L${158 + i * 11},500`).join(' '), o.base, 4);
  return (
    pattern +
    shadow(320, 506, 220) +
    // a folded blanket: layers seen from the front edge
    rect(150, 170, 340, 280, 18, fill) +
    rect(150, 170, 340, 280, 18, '#000000', 'opacity="0.12"') +
    rect(140, 230, 360, 240, 24, fill) +
    pathEl(
      'M140,420 C220,440 420,440 500,420 L500,446 Q500,470 476,470 L164,470 Q140,470 140,446 Z',
      '#000000',
      'opacity="0.16"',
    ) +
    rect(140, 230, 360, 20, 10, '#ffffff', 'opacity="0.14"') +
    fringe
  );
}

function sandals(o: { sole: string; edge: string; strap: string; buckle: string }): string {
  const sole =
    'M0,-190 C62,-190 84,-126 78,-58 C72,0 58,40 64,100 C70,162 42,192 0,192 C-42,192 -66,160 -62,100 C-58,40 -74,0 -78,-58 C-84,-126 -62,-190 0,-190 Z';
  const one = (cx: number, mirror: number, rot: number): string =>
    `<g transform="translate(${cx} 320) rotate(${rot}) scale(${mirror} 1)">` +
    pathEl(sole, o.edge, 'transform="translate(6 8)"') +
    pathEl(sole, o.sole) +
    pathEl(sole, 'none', `stroke="${o.edge}" stroke-width="6" transform="scale(0.9)"`) +
    stroke('M-74,-70 C-30,-110 30,-110 74,-70', o.strap, 30) +
    stroke('M-66,-10 C-20,-40 20,20 66,-10', o.strap, 30) +
    stroke('M-62,92 C-20,70 20,70 62,92', o.strap, 22) +
    rect(44, 70, 26, 36, 5, 'none', `stroke="${o.buckle}" stroke-width="5"`) +
    `</g>`;
  return shadow(320, 530, 220) + one(230, 1, -8) + one(410, -1, 8);
}

function football(o: { panel: string }): string {
  const clip = uid('c');
  const [defs, shade] = linear(
    [
      [0, '#ffffff'],
      [1, '#D7DCE2'],
    ],
    1,
    1,
  );
  const pent = (cx: number, cy: number, r: number, rot: number): string => {
    const pts = [0, 1, 2, 3, 4].map((i) => {
      const a = ((rot + i * 72 - 90) * Math.PI) / 180;
      return `${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`;
    });
    return `<polygon points="${pts.join(' ')}" fill="${o.panel}"/>`;
  };
  const c = { x: 320, y: 300 };
  const outer = [0, 1, 2, 3, 4].map((i) => {
    const a = ((i * 72 + 36 - 90) * Math.PI) / 180;
    return pent(c.x + Math.cos(a) * 170, c.y + Math.sin(a) * 170, 60, 36);
  });
  const seams = [0, 1, 2, 3, 4].map((i) => {
    const a = ((i * 72 - 90) * Math.PI) / 180;
    return `M${(c.x + Math.cos(a) * 58).toFixed(1)},${(c.y + Math.sin(a) * 58).toFixed(1)} L${(c.x + Math.cos(a) * 128).toFixed(1)},${(c.y + Math.sin(a) * 128).toFixed(1)}`;
  });
  return (
    defs +
    `<defs><clipPath id="${clip}"><circle cx="${c.x}" cy="${c.y}" r="180"/></clipPath></defs>` +
    shadow(320, 508, 160) +
    circle(c.x, c.y, 180, shade) +
    `<g clip-path="url(#${clip})">` +
    stroke(seams.join(' '), '#9CA3AF', 3) +
    pent(c.x, c.y, 58, 0) +
    outer.join('') +
    circle(c.x + 40, c.y + 50, 190, '#000000', 'opacity="0.06"') +
    `</g>` +
    circle(c.x, c.y, 180, 'none', 'stroke="#9CA3AF" stroke-width="4"') +
    ellipse(250, 200, 40, 22, '#ffffff', 'opacity="0.7" transform="rotate(-35 250 200)"')
  );
}

function backpack(o: { body: string; pocket: string; trim: string }): string {
  const shell =
    'M180,520 L180,236 C180,160 230,126 320,126 C410,126 460,160 460,236 L460,520 Q460,540 440,540 L200,540 Q180,540 180,520 Z';
  return (
    shadow(320, 540, 200) +
    stroke('M280,130 C280,84 360,84 360,130', darken(o.body, 0.3), 14) +
    rect(150, 300, 40, 200, 16, darken(o.body, 0.2)) +
    rect(450, 300, 40, 200, 16, darken(o.body, 0.2)) +
    rect(150, 360, 40, 140, 14, o.trim, 'opacity="0.7"') +
    rect(450, 360, 40, 140, 14, o.trim, 'opacity="0.7"') +
    pathEl(shell, o.body) +
    pathEl(
      'M180,236 C180,160 230,126 320,126 C410,126 460,160 460,236 L460,250 C400,214 240,214 180,250 Z',
      lighten(o.body, 0.12),
    ) +
    stroke('M196,262 C260,222 380,222 444,262', darken(o.body, 0.3), 5, 'stroke-dasharray="2 8"') +
    rect(412, 236, 10, 34, 5, o.trim) +
    rect(216, 344, 208, 164, 30, o.pocket) +
    stroke('M236,374 L404,374', darken(o.pocket, 0.3), 5, 'stroke-dasharray="2 8"') +
    rect(376, 368, 10, 32, 5, o.trim) +
    rect(290, 290, 60, 26, 8, o.trim) +
    stroke('M246,200 L246,540 M394,200 L394,540', darken(o.body, 0.2), 10, 'opacity="0.5"')
  );
}

function waterBottle(o: { body: string; cap: string }): string {
  const [defs, fill] = cylinder(o.body);
  const [cDefs, chrome] = cylinder('#C9CED6');
  return (
    defs +
    cDefs +
    shadow(320, 534, 140) +
    pathEl(
      'M244,226 C244,186 270,172 284,160 L356,160 C370,172 396,186 396,226 L396,500 Q396,528 368,528 L272,528 Q244,528 244,500 Z',
      fill,
    ) +
    rect(244, 488, 152, 40, 20, chrome, 'opacity="0.9"') +
    rect(278, 128, 84, 38, 8, chrome) +
    rect(268, 96, 104, 42, 14, o.cap) +
    stroke('M292,96 C292,52 348,52 348,96', o.cap, 14) +
    rect(280, 310, 80, 28, 8, lighten(o.body, 0.45), 'opacity="0.7"')
  );
}

function exerciseBooks(o: { covers: string[]; width: number; height: number }): string {
  const book = (cover: string, rot: number, dx: number, dy: number): string => {
    const x = 320 - o.width / 2 + dx;
    const y = 330 - o.height / 2 + dy;
    return (
      `<g transform="rotate(${rot} 320 330)">` +
      rect(x + 6, y + 6, o.width, o.height, 8, '#F4F1E8') +
      rect(x + 8, y + o.height - 4, o.width - 4, 10, 4, '#E2DDCF') +
      rect(x, y, o.width, o.height, 8, cover) +
      rect(x, y, 22, o.height, 6, darken(cover, 0.2)) +
      rect(x + 44, y + o.height * 0.42, o.width - 70, o.height * 0.34, 10, '#ffffff') +
      stroke(
        `M${x + 60},${y + o.height * 0.52} L${x + o.width - 42},${y + o.height * 0.52} M${x + 60},${y + o.height * 0.61} L${x + o.width - 42},${y + o.height * 0.61} M${x + 60},${y + o.height * 0.7} L${x + o.width - 60},${y + o.height * 0.7}`,
        '#9CA3AF',
        3,
      ) +
      circle(x + o.width / 2 + 10, y + o.height * 0.22, o.width * 0.12, lighten(cover, 0.35)) +
      rect(x + 44, y + o.height * 0.84, o.width - 70, 10, 5, lighten(cover, 0.3)) +
      `</g>`
    );
  };
  const n = o.covers.length;
  return (
    shadow(320, 330 + o.height / 2 + 30, o.width / 2 + 110) +
    o.covers
      .map((c, i) => book(c, (i - (n - 1)) * -7, (i - (n - 1)) * -28, (i - (n - 1)) * -6))
      .reverse()
      .join('')
  );
}

function pens(o: { ink: string; count: number }): string {
  const pen = (x: number): string =>
    rect(x - 17, 150, 34, 300, 6, '#E6EEF5', 'opacity="0.9"') +
    rect(x - 17, 150, 8, 300, 4, '#ffffff', 'opacity="0.8"') +
    rect(x - 3, 160, 6, 290, 3, o.ink) +
    pathEl(`M${x - 17},450 L${x + 17},450 L${x + 6},496 L${x - 6},496 Z`, '#E6EEF5') +
    pathEl(`M${x - 5},494 L${x + 5},494 L${x},512 Z`, '#9CA3AF') +
    rect(x - 19, 100, 38, 70, 10, o.ink) +
    rect(x + 10, 108, 8, 90, 4, darken(o.ink, 0.2)) +
    rect(x - 12, 96, 24, 10, 4, darken(o.ink, 0.25));
  const xs = Array.from({ length: o.count }, (_, i) => 320 + (i - (o.count - 1) / 2) * 56);
  return `${shadow(320, 530, 200)}<g transform="rotate(-30 320 320)">${xs.map(pen).join('')}</g>`;
}

function calculator(o: { body: string; key: string; accent: string }): string {
  const keys: string[] = [];
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 6; c++) keys.push(rect(222 + c * 33, 262 + r * 28, 26, 16, 8, darken(o.body, 0.35)));
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 5; c++) {
      const accent = r === 0 && c >= 3;
      keys.push(rect(222 + c * 40, 360 + r * 42, 32, 30, 7, accent ? o.accent : o.key));
    }
  }
  return (
    shadow(320, 540, 170) +
    rect(198, 106, 244, 430, 28, darken(o.body, 0.3)) +
    rect(198, 100, 244, 430, 28, o.body) +
    rect(350, 120, 70, 20, 4, '#3B2F2A') +
    rect(222, 152, 196, 84, 10, '#2b2e35') +
    rect(232, 162, 176, 64, 6, '#C6D3B4') +
    rect(376, 196, 20, 24, 2, '#4B5546') +
    rect(350, 196, 20, 24, 2, '#4B5546') +
    keys.join('')
  );
}

/** The neutral placeholder for a newly created product: a grey "image" icon. */
function sampleIcon(): string {
  return (
    rect(180, 200, 280, 240, 28, '#ffffff', 'stroke="#B4BAC2" stroke-width="16"') +
    circle(260, 270, 24, '#C3C8CF') +
    pathEl('M196,420 L290,322 L346,378 L384,338 L444,402 L444,424 L196,424 Z', '#C3C8CF')
  );
}

// ---------------------------------------------------------------------------------------------
// The catalogue

const categoryBackgrounds: Record<string, string> = {
  'Phones & Accessories': '#E4EEF9',
  Electronics: '#ECE8F7',
  'Kitchen & Home': '#FAEDE2',
  Groceries: '#EEF4E2',
  Fashion: '#F9E6EC',
  'Sports & Outdoors': '#E0F2EC',
  'School & Office': '#FBF3D8',
};
const fallbackBackground = '#EEF0F3';

const drawings: Record<string, () => string> = {
  'samsung-galaxy-a15-128gb': () => phone({ body: '#27364F', wallA: '#4F7CFF', wallB: '#B35CFF', camera: 'column' }),
  'tecno-spark-20-128gb': () => phone({ body: '#D9C9A3', wallA: '#FFB347', wallB: '#FF5E7E', camera: 'square' }),
  'infinix-hot-40i-128gb': () => phone({ body: '#2E6B5E', wallA: '#2BD4A4', wallB: '#1F6FD1', camera: 'square' }),
  'oraimo-freepods-lite': () => earbuds({ shell: '#F8FAFC', tip: '#A7B0BC' }),
  'oraimo-wired-earphones': () => wiredEarphones({ color: '#22252B', accent: '#3BB54A' }),
  'oraimo-power-bank-20000mah': () => powerBank({ body: '#3A3F47', led: '#3BB54A' }),
  'hisense-32-inch-smart-tv': () =>
    tv({ width: 400, bezel: '#1B1D22', skyA: '#6EC6FF', skyB: '#FFD59E', hill: '#4CAF6A', stand: 'feet' }),
  'tcl-40-inch-android-tv': () =>
    tv({ width: 450, bezel: '#202329', skyA: '#FF9A6B', skyB: '#FFE0A3', hill: '#8E5A3C', stand: 'feet' }),
  'samsung-43-inch-crystal-uhd-tv': () =>
    tv({ width: 500, bezel: '#15171B', skyA: '#3B5BDB', skyB: '#9AD0FF', hill: '#2F9E6E', stand: 'pedestal' }),
  'sun-king-pro-300-solar-lamp': () => solarLamp({ body: '#F5B400', panel: '#1E3A8A' }),
  'vitron-rechargeable-fm-radio': () => radio({ body: '#8B1E2D', trim: '#C9CED6' }),
  'ramtons-2-slice-toaster': () => toaster({ body: '#C9CED6' }),
  'mika-blender-1-5l': () => blender({ base: '#E8EAED', drink: '#FF9F1C' }),
  'ramtons-cordless-kettle-1-7l': () => kettle({ body: '#D5DADF', accent: '#1F2937' }),
  'aluminium-sufuria-set-5-pieces': () => sufurias(),
  'vacuum-flask-1-9l': () => flask({ body: '#F3EFE6', flower: '#E04F5F', centre: '#F7C52B' }),
  'kentainers-jerrycan-20l': () => jerrycan({ body: '#F2C230' }),
  'k-gas-6kg-cylinder-with-grill': () => gasCylinder({ body: '#D9482B', band: '#F3F4F6', grill: true }),
  'pro-gas-13kg-refill': () => gasCylinder({ body: '#1F5FAF', band: '#F3F4F6', grill: false }),
  'jogoo-maize-meal-2kg': () => flourBag({ paper: '#FBF8F1', band: '#C62828', accent: '#2E7D32' }),
  'pembe-maize-flour-2kg': () => flourBag({ paper: '#FBF8F1', band: '#1E4FA3', accent: '#F2B705' }),
  'ketepa-pride-tea-500g': () => teaPacket({ box: '#B3202C', band: '#1F6B3A' }),
  'dormans-ground-coffee-250g': () => coffeeBag({ bag: '#3B2A20', label: '#E9D9B8' }),
  'kabras-sugar-2kg': () => sugarPacket({ band: '#1565C0' }),
  'fresh-fri-cooking-oil-3l': () => oilBottle({ size: 'large', cap: '#C62828', label: '#1B7F3A', icon: 'sunflower' }),
  'elianto-corn-oil-1l': () => oilBottle({ size: 'small', cap: '#F2B705', label: '#0F4C8A', icon: 'maize' }),
  'cotton-kikoi-beach-wrap': () =>
    kikoi({
      stripes: [
        '#1E5AA8',
        '#F2B705',
        '#1E5AA8',
        '#E04F5F',
        '#F7F3E8',
        '#2E7D32',
        '#F7F3E8',
        '#E04F5F',
        '#1E5AA8',
        '#F2B705',
        '#1E5AA8',
      ],
    }),
  'printed-kanga-pair': () => kanga({ field: '#F2B705', border: '#8E1B3A', motif: '#1B6B5A', back: '#2F6FB0' }),
  'maasai-shuka-red-check': () => shuka({ base: '#C62828', stripeA: '#1A1A2E', stripeB: '#1E3A8A' }),
  'maasai-shuka-blue-check': () => shuka({ base: '#1E5AA8', stripeA: '#0F1A2E', stripeB: '#C62828' }),
  'akala-tyre-sandals': () => sandals({ sole: '#2B2D31', edge: '#141518', strap: '#8B5A2B', buckle: '#1F2937' }),
  'bata-leather-sandals': () => sandals({ sole: '#B07A45', edge: '#6B4423', strap: '#5C3A1E', buckle: '#D4AF37' }),
  'mitre-size-5-football': () => football({ panel: '#1F2937' }),
  'hiking-backpack-40l': () => backpack({ body: '#E2622B', pocket: '#4B5563', trim: '#1F2937' }),
  'stainless-steel-water-bottle-750ml': () => waterBottle({ body: '#1C8C84', cap: '#1F2937' }),
  'kasuku-exercise-books-a4-10-pack': () => exerciseBooks({ covers: ['#2E7D32', '#1E5AA8', '#C62828'], width: 220, height: 300 }),
  'kasuku-exercise-books-a5-12-pack': () =>
    exerciseBooks({ covers: ['#F2B705', '#2E7D32', '#7B3FA0', '#1E5AA8'], width: 170, height: 236 }),
  'bic-cristal-pens-blue-10-pack': () => pens({ ink: '#1D4ED8', count: 4 }),
  'casio-fx-82ms-calculator': () => calculator({ body: '#3A3F47', key: '#D1D5DB', accent: '#E2622B' }),
  'kids-school-backpack': () => backpack({ body: '#2F6FB0', pocket: '#F2B705', trim: '#1F2937' }),
};

// ---------------------------------------------------------------------------------------------
// Rendering

function svgDocument(background: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">` +
    rect(0, 0, SIZE, SIZE, 0, background) +
    circle(320, 320, 250, lighten(background, 0.45)) +
    body +
    `</svg>`
  );
}

async function render(name: string, svg: string, pngDir: string | undefined): Promise<number> {
  const image = sharp(Buffer.from(svg)).resize(SIZE, SIZE);
  const webp = await image.clone().webp({ quality: WEBP_QUALITY, effort: 6 }).toBuffer();
  await writeFile(path.join(demoImagesDir, `${name}.webp`), webp);
  if (pngDir)
    await image
      .clone()
      .png()
      .toFile(path.join(pngDir, `${name}.png`));
  return webp.length;
}

async function main(): Promise<void> {
  const pngFlag = process.argv.indexOf('--png');
  const pngDir = pngFlag >= 0 ? process.argv[pngFlag + 1] : undefined;
  if (pngFlag >= 0 && !pngDir) throw new Error('--png needs a directory');

  const missing = demoProducts.filter((p) => !drawings[p.slug]).map((p) => p.slug);
  if (missing.length > 0) throw new Error(`No drawing for: ${missing.join(', ')}`);
  const unused = Object.keys(drawings).filter((slug) => !demoProducts.some((p) => p.slug === slug));
  if (unused.length > 0) console.warn(`Drawings without a demo product: ${unused.join(', ')}`);

  await mkdir(demoImagesDir, { recursive: true });
  if (pngDir) await mkdir(pngDir, { recursive: true });

  const jobs: Array<[string, string]> = demoProducts.map((p) => {
    const draw = drawings[p.slug];
    if (!draw) throw new Error(`No drawing for ${p.slug}`);
    return [p.slug, svgDocument(categoryBackgrounds[p.category] ?? fallbackBackground, draw())];
  });
  jobs.push(['sample', svgDocument(fallbackBackground, sampleIcon())]);

  let total = 0;
  const tooBig: string[] = [];
  for (const [name, svg] of jobs) {
    const bytes = await render(name, svg, pngDir);
    total += bytes;
    if (bytes > MAX_BYTES) tooBig.push(`${name} (${Math.round(bytes / 1024)} KB)`);
  }
  console.log(
    `Wrote ${jobs.length} images to ${path.relative(process.cwd(), demoImagesDir) || '.'}, ${Math.round(total / 1024)} KB in all.`,
  );
  if (tooBig.length > 0) console.warn(`Larger than ${MAX_BYTES / 1024} KB: ${tooBig.join(', ')}`);
}

await main();
