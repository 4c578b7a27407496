import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';

/** A form's submit button: disabled with a spinner while its call runs, so it cannot be sent twice. */
export default function SubmitButton({ busy, children }: { busy: boolean; children: React.ReactNode }) {
  return (
    <Button type="submit" variant="dark" disabled={busy} aria-busy={busy} className="d-inline-flex align-items-center gap-2">
      {busy && <Spinner as="span" animation="border" size="sm" aria-hidden="true" />}
      {children}
    </Button>
  );
}
