import type { CSSProperties } from 'react';

/**
 * The mails' look. They are written for mail clients rather than browsers: one column at most
 * 600 px wide, laid out with presentation tables, inline styles only (clients drop <style> blocks
 * and external CSS), system fonts and no images.
 */

export const BRAND = '#0f5132';
export const ACCENT = '#198754';
export const DANGER = '#b02a37';
export const TEXT = '#212529';
export const MUTED = '#6c757d';
export const BORDER = '#dee2e6';
export const PAGE = '#f3f4f6';
export const PANEL = '#f8f9fa';
export const WHITE = '#ffffff';
export const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif";

/** Small caps-like labels: the items table's headers, the subheadings, "How to pay". */
export const LABEL: CSSProperties = { fontWeight: '700', letterSpacing: '0.06em', textTransform: 'uppercase' };

declare module 'react' {
  // Mail clients still read a cell's background from the attribute (Outlook's Word engine ignores
  // the CSS one on a cell), and React renders it as written.
  interface TdHTMLAttributes<T> {
    bgcolor?: string | undefined;
  }
  // Outlook's property that hides the preheader, which React writes as `mso-hide`.
  interface CSSProperties {
    msoHide?: 'all' | undefined;
  }
}
