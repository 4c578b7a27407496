import Form from 'react-bootstrap/Form';
import { useNavigate } from 'react-router';
import { type ForgotPasswordBody, forgotPasswordBody } from '../../../shared/schemas/users';
import { useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { EmailField } from './account-fields';
import { useForgotPasswordMutation } from './api';
import SubmitButton from './submit-button';

/** Asks for a reset link by email (docs/product-rules.md, Screens); the shopper returns home once it is sent. */
export default function ForgotPasswordScreen() {
  const form = useZodForm<ForgotPasswordBody, ForgotPasswordBody>(forgotPasswordBody, { email: '' });
  const [forgotPassword, { isLoading }] = useForgotPasswordMutation();
  const navigate = useNavigate();

  const submit = form.handleSubmit(async ({ email }) => {
    try {
      const { msg } = await forgotPassword({ email }).unwrap();
      toastSuccess(msg);
      navigate(paths.home);
    } catch (error) {
      // Stay here so a mistyped address can be corrected.
      toastErrors(error);
    }
  });

  return (
    <FormContainer>
      <PageTitle title="Forgot Password" />
      <h1 className="h2 mb-3">Forgot Password</h1>
      <p className="text-body-secondary">
        Enter the email address of your account and we will send you a link to choose a new password.
      </p>
      <Form noValidate onSubmit={submit}>
        <EmailField form={form} />
        <SubmitButton busy={isLoading}>Send Reset Link</SubmitButton>
      </Form>
    </FormContainer>
  );
}
