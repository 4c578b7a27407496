import type { CSSProperties, ReactNode, TableHTMLAttributes } from 'react';
import { ACCENT, BORDER, FONT, LABEL, MUTED, PANEL, TEXT, WHITE } from './theme.js';

/**
 * The pieces the mails are made of. React escapes every text and attribute value, so a name or an
 * address can never become markup in a mail, nor a URL leave its href.
 */

/** A table that only lays things out: screen readers skip its structure. */
export function LayoutTable({ children, ...rest }: TableHTMLAttributes<HTMLTableElement>) {
  return (
    <table role="presentation" cellPadding="0" cellSpacing="0" border={0} {...rest}>
      {children}
    </table>
  );
}

export function Heading({ children }: { children: ReactNode }) {
  return (
    <h1 style={{ margin: '0 0 6px', fontFamily: FONT, fontSize: '22px', lineHeight: '1.3', fontWeight: '700', color: TEXT }}>
      {children}
    </h1>
  );
}

export function Subheading({ children }: { children: ReactNode }) {
  return (
    <h2 style={{ margin: '28px 0 10px', fontFamily: FONT, fontSize: '13px', lineHeight: '1.4', ...LABEL, color: MUTED }}>
      {children}
    </h2>
  );
}

/** A paragraph; `style` adds to or overrides its bottom margin. */
export function Para({ children, style }: { children: ReactNode; style?: CSSProperties }) {
  return <p style={{ margin: '0 0 14px', ...style }}>{children}</p>;
}

export function Muted({ children }: { children: ReactNode }) {
  return <span style={{ color: MUTED, fontSize: '13px' }}>{children}</span>;
}

/** A link; its text is the address unless told otherwise. */
export function Link({ href, children = href }: { href: string; children?: ReactNode }) {
  return (
    <a href={href} style={{ color: ACCENT, textDecoration: 'underline' }}>
      {children}
    </a>
  );
}

/** A link that looks like a button in every client, Outlook's cell background included. */
export function Button({ href, label, showAddress = true }: { href: string; label: string; showAddress?: boolean }) {
  return (
    <>
      <LayoutTable style={{ margin: '22px 0 8px' }}>
        <tr>
          <td bgcolor={ACCENT} style={{ backgroundColor: ACCENT, borderRadius: '6px' }}>
            <a
              href={href}
              style={{
                display: 'inline-block',
                padding: '12px 24px',
                fontFamily: FONT,
                fontSize: '15px',
                lineHeight: '20px',
                fontWeight: '600',
                color: WHITE,
                textDecoration: 'none',
                borderRadius: '6px',
              }}
            >
              {label}
            </a>
          </td>
        </tr>
      </LayoutTable>
      {showAddress && (
        <Para style={{ wordBreak: 'break-all' }}>
          <Muted>
            Or open this address: <Link href={href} />
          </Muted>
        </Para>
      )}
    </>
  );
}

/** Label/value rows. `strongLast` makes the last row a total. */
export function PairsTable({
  rows,
  strongLast = false,
  alignValues = 'left',
}: {
  rows: readonly (readonly [string, string])[];
  strongLast?: boolean;
  alignValues?: 'left' | 'right';
}) {
  return (
    <LayoutTable width="100%" style={{ width: '100%', fontFamily: FONT, fontSize: '15px', lineHeight: '1.5' }}>
      {rows.map(([label, value], i) => {
        const total = strongLast && i === rows.length - 1;
        const top: CSSProperties = total ? { borderTop: `2px solid ${BORDER}`, paddingTop: '10px' } : {};
        const weight: CSSProperties = total ? { fontWeight: '700', fontSize: '16px' } : {};
        return (
          // Labels are unique within a table.
          <tr key={label}>
            <td
              width="1%"
              style={{
                ...top,
                paddingBottom: '4px',
                paddingRight: '24px',
                whiteSpace: 'nowrap',
                verticalAlign: 'top',
                ...weight,
                color: total ? TEXT : MUTED,
              }}
            >
              {label}
            </td>
            <td align={alignValues} style={{ ...top, paddingBottom: '4px', verticalAlign: 'top', ...weight, color: TEXT }}>
              {value}
            </td>
          </tr>
        );
      })}
    </LayoutTable>
  );
}

/** A tinted box; `accent` draws a coloured bar down its left side. */
export function Panel({ children, accent }: { children: ReactNode; accent?: string | undefined }) {
  return (
    <LayoutTable width="100%" style={{ width: '100%', margin: '0 0 8px' }}>
      <tr>
        <td
          bgcolor={PANEL}
          style={{
            backgroundColor: PANEL,
            ...(accent ? { borderLeft: `4px solid ${accent}` } : {}),
            borderRadius: '6px',
            padding: '16px 18px',
            fontFamily: FONT,
            fontSize: '15px',
            lineHeight: '1.55',
            color: TEXT,
          }}
        >
          {children}
        </td>
      </tr>
    </LayoutTable>
  );
}

/** A one-paragraph panel: a notice with a coloured bar. */
export function Notice({ children, accent }: { children: ReactNode; accent: string }) {
  return (
    <Panel accent={accent}>
      <Para style={{ margin: '0' }}>{children}</Para>
    </Panel>
  );
}

/** The cell style of a row in the mails' lists (items, products): a line under each. */
export const ROW_CELL: CSSProperties = { borderBottom: `1px solid ${BORDER}`, verticalAlign: 'top' };

/** A list of rows laid out as a table, as the item lists are. */
export function RowsTable({ children, layout = true }: { children: ReactNode; layout?: boolean }) {
  const style: CSSProperties = {
    width: '100%',
    borderCollapse: 'collapse',
    fontFamily: FONT,
    fontSize: '15px',
    lineHeight: '1.45',
    color: TEXT,
  };
  // A data table (headers announced) is a table of its own; the others only lay out.
  return layout ? (
    <LayoutTable width="100%" style={style}>
      {children}
    </LayoutTable>
  ) : (
    <table width="100%" cellPadding="0" cellSpacing="0" border={0} style={style}>
      {children}
    </table>
  );
}
