import { lazy, Suspense } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { Review } from '../../../shared/schemas/products';
import type { PublicUser } from '../../../shared/schemas/users';
import { TrashIcon } from '../../components/icons';
import Message from '../../components/message';
import Rating from '../../components/rating';
import { useConfirmedDelete } from '../../hooks/use-confirmed-delete';
import { useAppSelector } from '../../stores/store';
import { useDeleteReviewMutation } from './api';
import '../../styles/list-group.scss';

/** A review's author and any admin may delete it (docs/product-rules.md); the server checks again. */
export function canDeleteReview(review: Review, user: PublicUser | null): boolean {
  if (!user) return false;
  return user.isAdmin || review.user === user._id;
}

// Only someone who may delete a review needs the dialog (and Bootstrap's modal code): a visitor
// reading a product page never downloads it.
const ConfirmDialog = lazy(() => import('../../components/confirm-dialog'));

/** The product's reviews with their stars, newest as the server orders them. */
export default function ReviewList({ productId, reviews }: { productId: string; reviews: Review[] }) {
  const user = useAppSelector((s) => s.auth.user);
  const [deleteReview] = useDeleteReviewMutation();
  // The review a Delete was tapped for waits for the shopper to confirm or cancel.
  const deletion = useConfirmedDelete((reviewId: string) => deleteReview({ productId, reviewId }).unwrap());
  const deletingId = deletion.pending;

  if (reviews.length === 0) return <Message>No Reviews</Message>;

  return (
    <>
      {reviews.some((review) => canDeleteReview(review, user)) && (
        <Suspense fallback={null}>
          <ConfirmDialog
            {...deletion.dialog}
            title="Delete review"
            body="Are you sure you want to delete this review?"
            confirmLabel="Delete"
          />
        </Suspense>
      )}
      <div className="list-group list-group-flush border-top border-bottom">
        {reviews.map((review) => (
          <article key={review._id} className="list-group-item px-0 py-3">
            <div className="d-flex align-items-start justify-content-between gap-2">
              <div>
                <strong>{review.name}</strong>
                <Rating value={review.rating} />
                <p className="small text-body-secondary mb-0">
                  <time dateTime={review.createdAt}>{review.createdAt.substring(0, 10)}</time>
                </p>
              </div>
              {canDeleteReview(review, user) && (
                <Button
                  variant="outline-danger"
                  size="sm"
                  onClick={() => deletion.ask(review._id)}
                  disabled={deletingId === review._id}
                  className="d-inline-flex align-items-center gap-1 flex-shrink-0"
                >
                  {deletingId === review._id ? <Spinner animation="border" size="sm" aria-hidden="true" /> : <TrashIcon />}
                  Delete
                </Button>
              )}
            </div>
            <p className="mt-2 mb-0" style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
              {review.comment}
            </p>
          </article>
        ))}
      </div>
    </>
  );
}
