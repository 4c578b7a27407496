import Alert from 'react-bootstrap/Alert';

/** A notice in the page (an error, an empty state, a status). */
export default function Message({ variant = 'info', children }: { variant?: string; children: React.ReactNode }) {
  return (
    <Alert variant={variant} role={variant === 'danger' ? 'alert' : 'status'}>
      {children}
    </Alert>
  );
}
