import { useEffect } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { registerForm } from '../../../shared/schemas/users';
import { useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import PageTitle from '../../components/page-title';
import { paths, safeRedirect } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { setCredentials, signedOut } from '../../stores/auth-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { EmailField, NameField, NewPasswordFields } from './account-fields';
import { useRegisterMutation } from './api';
import SubmitButton from './submit-button';

/** Sign-up (docs/product-rules.md, Screens): a new account is signed in at once and goes on to the `redirect` target. */
export default function RegisterScreen() {
  const form = useZodForm(registerForm, { name: '', email: '', password: '', confirmPassword: '' });
  const [register, { isLoading }] = useRegisterMutation();
  const user = useAppSelector((s) => s.auth.user);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const redirect = safeRedirect(searchParams.get('redirect'));

  useEffect(() => {
    if (user) navigate(redirect, { replace: true });
  }, [user, redirect, navigate]);

  const submit = form.handleSubmit(async ({ name, email, password }) => {
    try {
      const created = await register({ name, email, password }).unwrap();
      dispatch(setCredentials(created));
      toastSuccess('Registration successful');
      navigate(redirect, { replace: true });
    } catch (error) {
      dispatch(signedOut());
      placeServerErrors(form, error);
      toastErrors(error);
    }
  });

  return (
    <FormContainer>
      <PageTitle title="Sign Up" />
      <h1 className="h2 mb-3">Sign Up</h1>
      <Form noValidate onSubmit={submit}>
        <NameField form={form} />
        <EmailField form={form} />
        <NewPasswordFields form={form} />
        <SubmitButton busy={isLoading}>Sign Up</SubmitButton>
      </Form>
      <Row className="py-3">
        <Col>
          Have an Account? <Link to={paths.login(redirect)}>Login</Link>
        </Col>
      </Row>
    </FormContainer>
  );
}
