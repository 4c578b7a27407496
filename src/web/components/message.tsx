/**
 * A notice in the page (an error, an empty state, a status): Bootstrap's alert as markup, since
 * react-bootstrap's Alert brings its fade and close-button code into the home page's download.
 */
export default function Message({ variant = 'info', children }: { variant?: string; children: React.ReactNode }) {
  return (
    <div className={`alert alert-${variant}`} role={variant === 'danger' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
