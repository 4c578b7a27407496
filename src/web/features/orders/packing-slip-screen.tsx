import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import ToggleButton from 'react-bootstrap/ToggleButton';
import ToggleButtonGroup from 'react-bootstrap/ToggleButtonGroup';
import { Link, useParams } from 'react-router';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { errorMessage } from '../../lib/errors';
import { useGetOrderDetailsQuery } from './api';
import PackingSlip from './packing-slip';
import './packing-slip.css';

type Paper = 'a4' | '80' | '58';
const PAPERS: { value: Paper; label: string }[] = [
  { value: 'a4', label: 'A4' },
  { value: '80', label: '80 mm' },
  { value: '58', label: '58 mm' },
];

/** The print page of each paper: A4 names its size and margins; a receipt roll's driver sets its own length. */
const PAGE_RULE: Record<Paper, string> = {
  a4: '@page { size: A4 portrait; margin: 12mm; }',
  '80': '@page { margin: 3mm 4mm; }',
  '58': '@page { margin: 2mm 5mm; }',
};

function paperFrom(value: string | null): Paper {
  return value === '80' || value === '58' ? value : 'a4';
}

/** On screen only: back to the order, the paper the slip is laid out for, and Print. */
function SlipControls({ orderId, paper, onChoose }: { orderId: string; paper: Paper; onChoose: (paper: Paper) => void }) {
  return (
    <div className="slip-controls">
      <Link to={paths.order(orderId)} className="btn btn-light tap-target d-inline-flex align-items-center me-auto">
        Back to the order
      </Link>
      <ToggleButtonGroup type="radio" name="slip-paper" value={paper} onChange={onChoose} aria-label="Paper">
        {PAPERS.map((p) => (
          <ToggleButton
            key={p.value}
            id={`slip-paper-${p.value}`}
            value={p.value}
            variant="outline-dark"
            className="tap-target d-inline-flex align-items-center"
          >
            {p.label}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
      <Button variant="dark" className="tap-target" onClick={() => window.print()}>
        Print
      </Button>
    </div>
  );
}

/**
 * An order's packing slip (admin): the shop, the order number, where it goes and what goes in the
 * parcel, for an A4 printer or a 58/80 mm receipt printer. On screen a preview with the paper
 * choice and a Print button; in print only the slip.
 */
export default function PackingSlipScreen() {
  const { id = '' } = useParams();
  const { data: order, isLoading, error } = useGetOrderDetailsQuery(id);
  const [paper, setPaper] = useState<Paper>(() => paperFrom(localStorage.getItem('duka.slipPaper')));

  // Printing this screen prints the slip alone: the class hides the shop's header and footer.
  useEffect(() => {
    document.body.classList.add('printing-slip');
    return () => document.body.classList.remove('printing-slip');
  }, []);

  function choose(value: Paper) {
    setPaper(value);
    // The shop's printer stays the same from one order to the next.
    localStorage.setItem('duka.slipPaper', value);
  }

  if (isLoading) return <Loader label="Loading the order…" />;
  if (error || !order) {
    return (
      <>
        <PageTitle title="Packing slip" />
        <Message variant="danger">{errorMessage(error)}</Message>
      </>
    );
  }

  return (
    <div className={`slip-paper-${paper}`}>
      <PageTitle title={`Packing slip ${order.orderNumber}`} />
      <style>{`@media print { ${PAGE_RULE[paper]} }`}</style>
      <SlipControls orderId={order._id} paper={paper} onChoose={choose} />
      <PackingSlip order={order} />
    </div>
  );
}
