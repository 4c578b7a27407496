import { useState } from 'react';
import Form from 'react-bootstrap/Form';
import { Link, useNavigate, useParams } from 'react-router';
import { resetPasswordForm } from '../../../shared/schemas/users';
import { useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { NewPasswordFields } from './account-fields';
import { useResetPasswordMutation } from './api';
import SubmitButton from './submit-button';

/**
 * Whether a failed reset means the link itself is unusable (unknown, expired or already used),
 * rather than a password the server refused or a network failure.
 */
function linkUnusable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('status' in error)) return false;
  const { status, data } = error as { status: unknown; data?: { errors?: { path?: unknown }[] } };
  const passwordProblem = Array.isArray(data?.errors) && data.errors.some((e) => e?.path === 'password');
  return (status === 400 || status === 404) && !passwordProblem;
}

/** Chooses a new password with the token from a reset link (docs/product-rules.md, Screens), then on to sign in. */
export default function ResetPasswordScreen() {
  const { token = '' } = useParams();
  const form = useZodForm(resetPasswordForm, { password: '', confirmPassword: '' });
  // The messages of a failure caused by the link, shown with a way to get a new one.
  const [linkFailure, setLinkFailure] = useState<string[]>([]);
  const [resetPassword, { isLoading }] = useResetPasswordMutation();
  const navigate = useNavigate();

  const submit = form.handleSubmit(async ({ password }) => {
    try {
      const { msg } = await resetPassword({ token, password }).unwrap();
      toastSuccess(msg);
      navigate(paths.login());
    } catch (error) {
      toastErrors(error);
      // A refused password under its field; what is about the link above the form.
      const aboutNoField = placeServerErrors(form, error);
      setLinkFailure(linkUnusable(error) ? aboutNoField : []);
    }
  });

  return (
    <FormContainer>
      <PageTitle title="Reset Password" />
      <h1 className="h2 mb-3">Reset Password</h1>
      {linkFailure.length > 0 && (
        <Message variant="danger">
          <p className="mb-2">{linkFailure.join(' ')}</p>
          <Link to={paths.forgotPassword} className="alert-link">
            Ask for a new reset link
          </Link>
        </Message>
      )}
      <Form noValidate onSubmit={submit}>
        <NewPasswordFields form={form} label="New Password" />
        <SubmitButton busy={isLoading}>Reset Password</SubmitButton>
      </Form>
      {linkFailure.length === 0 && (
        <p className="py-3 mb-0">
          Link expired or already used? <Link to={paths.forgotPassword}>Ask for a new one</Link>
        </p>
      )}
    </FormContainer>
  );
}
