import Spinner from 'react-bootstrap/Spinner';

/** A spinner while something loads, announced to screen readers. */
export default function Loader({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="d-flex justify-content-center my-5">
      <Spinner animation="border" role="status" style={{ width: '3rem', height: '3rem' }}>
        <span className="visually-hidden">{label}</span>
      </Spinner>
    </div>
  );
}
