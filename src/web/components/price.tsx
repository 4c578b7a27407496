import { formatKsh } from '../../shared/money';

/** A price as the specification shows it: 'Ksh.' and two decimals. */
export default function Price({ value, className }: { value: number; className?: string }) {
  return <span className={className}>{formatKsh(value)}</span>;
}
