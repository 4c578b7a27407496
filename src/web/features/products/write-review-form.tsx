import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { type ReviewBody, reviewForm } from '../../../shared/schemas/products';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import Message from '../../components/message';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { useCreateReviewMutation } from './api';

/** The rating choices of docs/product-rules.md. */
export const RATING_CHOICES = [
  { value: 1, label: '1 - Poor' },
  { value: 2, label: '2 - Fair' },
  { value: 3, label: '3 - Good' },
  { value: 4, label: '4 - Very Good' },
  { value: 5, label: '5 - Excellent' },
] as const;

/**
 * The signed-in shopper's review: a rating and a comment. Its own chunk, with the form library, so a
 * product page's first screen does not wait for it.
 */
export default function WriteReviewForm({ productId, reviewed }: { productId: string; reviewed: boolean }) {
  const form = useZodForm<{ rating: string; comment: string }, ReviewBody>(reviewForm, { rating: '', comment: '' });
  const [createReview, { isLoading }] = useCreateReviewMutation();

  const submit = form.handleSubmit(async ({ rating, comment }) => {
    try {
      const result = await createReview({ productId, rating, comment }).unwrap();
      toastSuccess(result.msg);
      form.reset();
    } catch (error) {
      toastErrors(error);
    }
  });

  return (
    <Form noValidate onSubmit={submit}>
      {reviewed && <Message variant="info">You have reviewed this product. Delete your review above to write a new one.</Message>}
      {/* Kept on screen, emptied and closed: the review just sent is listed above. */}
      <fieldset disabled={reviewed}>
        <FormField form={form} name="rating" id="review-rating" label="Rating" control="select">
          <option value="">Select...</option>
          {RATING_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </FormField>
        <FormField
          form={form}
          name="comment"
          id="review-comment"
          label="Comment"
          control="textarea"
          rows={4}
          schema={reviewForm.shape.comment}
        />
        <Button type="submit" variant="dark" disabled={isLoading} className="d-inline-flex align-items-center gap-2">
          {isLoading && <Spinner animation="border" size="sm" aria-hidden="true" />}
          Submit
        </Button>
      </fieldset>
    </Form>
  );
}
