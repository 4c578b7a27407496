import Spinner from 'react-bootstrap/Spinner';

/**
 * A spinner while something loads, announced to screen readers. It holds a screen's height and
 * uses padding rather than margins: the footer stays below the fold and nothing above moves when
 * the content replaces it (no layout shift).
 */
export default function Loader({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="d-flex justify-content-center align-items-start py-5 loader">
      <Spinner animation="border" role="status" style={{ width: '3rem', height: '3rem' }}>
        <span className="visually-hidden">{label}</span>
      </Spinner>
    </div>
  );
}
