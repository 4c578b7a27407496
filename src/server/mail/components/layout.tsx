import type { ReactElement, ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { LayoutTable } from './blocks.js';
import { BORDER, BRAND, FONT, MUTED, PAGE, TEXT, WHITE } from './theme.js';

interface LayoutProps {
  /** The document title: the subject. */
  title: string;
  /** The line a mail client shows next to the subject in the inbox. */
  preheader: string;
  shopUrl?: string | undefined;
  /** Why this person gets the mail, shown small in the footer. */
  reason: string;
  /** The merchant's name for the shop (its settings). */
  shopName: string;
  children: ReactNode;
}

/** Every mail's page: the shop's name in a coloured band, the content in a white card, the footer under it. */
export function Layout({ title, preheader, shopUrl, reason, shopName, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light only" />
        <meta name="supported-color-schemes" content="light" />
        <title>{title}</title>
      </head>
      <body style={{ margin: '0', padding: '0', backgroundColor: PAGE, WebkitTextSizeAdjust: '100%' }}>
        <div
          style={{
            display: 'none',
            maxHeight: '0',
            maxWidth: '0',
            overflow: 'hidden',
            opacity: '0',
            msoHide: 'all',
            fontSize: '1px',
            lineHeight: '1px',
            color: PAGE,
          }}
        >
          {preheader}
        </div>
        <LayoutTable width="100%" bgcolor={PAGE} style={{ width: '100%', backgroundColor: PAGE }}>
          <tr>
            <td align="center" style={{ padding: '24px 10px' }}>
              <LayoutTable width="600" style={{ width: '100%', maxWidth: '600px', borderCollapse: 'separate' }}>
                <tr>
                  <td
                    bgcolor={BRAND}
                    style={{
                      backgroundColor: BRAND,
                      borderRadius: '8px 8px 0 0',
                      padding: '18px 24px',
                      fontFamily: FONT,
                      fontSize: '24px',
                      lineHeight: '28px',
                      fontWeight: '700',
                      letterSpacing: '0.02em',
                      color: WHITE,
                    }}
                  >
                    {shopUrl ? (
                      <a href={shopUrl} style={{ color: WHITE, textDecoration: 'none' }}>
                        {shopName}
                      </a>
                    ) : (
                      shopName
                    )}
                  </td>
                </tr>
                <tr>
                  <td
                    bgcolor={WHITE}
                    style={{
                      backgroundColor: WHITE,
                      border: `1px solid ${BORDER}`,
                      borderTop: '0',
                      borderRadius: '0 0 8px 8px',
                      padding: '28px 24px 24px',
                      fontFamily: FONT,
                      fontSize: '15px',
                      lineHeight: '1.55',
                      color: TEXT,
                    }}
                  >
                    {children}
                  </td>
                </tr>
                <tr>
                  <td
                    align="center"
                    style={{ padding: '18px 24px 0', fontFamily: FONT, fontSize: '12px', lineHeight: '1.6', color: MUTED }}
                  >
                    {shopName}
                    {shopUrl && (
                      <>
                        {' · '}
                        <a href={shopUrl} style={{ color: MUTED, textDecoration: 'underline' }}>
                          {shopUrl}
                        </a>
                      </>
                    )}
                    <br />
                    {reason}
                  </td>
                </tr>
              </LayoutTable>
            </td>
          </tr>
        </LayoutTable>
      </body>
    </html>
  );
}

/** A mail's HTML document: the element rendered once, to markup with no React attributes. */
export function renderMail(mail: ReactElement): string {
  return `<!doctype html>\n${renderToStaticMarkup(mail)}`;
}
