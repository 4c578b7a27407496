import { StarEmpty, StarFull, StarHalf } from './icons';

/** Rounds to the nearest half star: 4.3 shows four and a half, as the specification's half steps. */
export function halfSteps(value: number): number {
  return Math.min(5, Math.max(0, Math.round(value * 2) / 2));
}

/** "1 review", "3 reviews". */
export function reviewCount(count: number): string {
  return `${count} review${count === 1 ? '' : 's'}`;
}

/** Five stars in half steps (docs/product-rules.md, Screens), with the rating and an optional text for screen readers and eyes. */
export default function Rating({ value, text }: { value: number; text?: string }) {
  const shown = halfSteps(value);
  return (
    <div className="rating d-flex align-items-center gap-1">
      <span className="rating-stars" role="img" aria-label={`Rated ${shown} out of 5`}>
        {[1, 2, 3, 4, 5].map((star) =>
          shown >= star ? <StarFull key={star} /> : shown >= star - 0.5 ? <StarHalf key={star} /> : <StarEmpty key={star} />,
        )}
      </span>
      {text && <span className="rating-text small text-body-secondary">{text}</span>}
    </div>
  );
}
