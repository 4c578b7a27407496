import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import type { Review } from '../../../shared/schemas/products';
import Loader from '../../components/loader';
import Message from '../../components/message';
import { paths } from '../../config/paths';
import { useAppSelector } from '../../stores/store';

// Below the fold and only for signed-in shoppers: loaded when shown, not with the page.
const WriteReviewForm = lazy(() => import('./write-review-form'));

/**
 * 'Write a Customer Review': guests are asked to sign in (and come back here); a signed-in
 * shopper picks a rating and writes a comment. The product reloads by itself once the review is added.
 */
export default function ReviewForm({ productId, reviews }: { productId: string; reviews: Review[] }) {
  const user = useAppSelector((s) => s.auth.user);
  // One review per shopper: once theirs is listed, the form would only earn a "already reviewed" error.
  const reviewed = user !== null && reviews.some((review) => review.user === user._id);

  return (
    <section aria-labelledby="write-review-heading" className="mt-4">
      <h2 id="write-review-heading" className="h5 mb-3">
        Write a Customer Review
      </h2>
      {user ? (
        <Suspense fallback={<Loader label="Loading the review form…" />}>
          <WriteReviewForm productId={productId} reviewed={reviewed} />
        </Suspense>
      ) : (
        <Message>
          Please{' '}
          <Link to={paths.login(paths.product(productId))} className="alert-link">
            sign in
          </Link>{' '}
          to write a review
        </Message>
      )}
    </section>
  );
}
