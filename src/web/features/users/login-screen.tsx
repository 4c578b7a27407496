import { useEffect } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { type LoginBody, loginBody } from '../../../shared/schemas/users';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { type LoginState, paths, safeRedirect } from '../../config/paths';
import { toastErrors } from '../../lib/toast';
import { setCredentials, signedOut } from '../../stores/auth-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { EmailField } from './account-fields';
import { useLoginMutation } from './api';
import SubmitButton from './submit-button';

/** Sign in (docs/product-rules.md, Screens): email and password, then on to the `redirect` target. */
export default function LoginScreen() {
  const form = useZodForm<LoginBody, LoginBody>(loginBody, { email: '', password: '' });
  const [login, { isLoading }] = useLoginMutation();
  const user = useAppSelector((s) => s.auth.user);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const redirect = safeRedirect(searchParams.get('redirect'));
  const adminRequired = (useLocation().state as LoginState | null)?.adminRequired === true;

  // A signed-in user has nothing to do here, unless the admin guard sent them: bouncing a
  // shopper back to an admin screen would loop, so they stay and may sign in as an admin.
  useEffect(() => {
    if (user && !adminRequired) navigate(redirect, { replace: true });
  }, [user, adminRequired, redirect, navigate]);

  const submit = form.handleSubmit(async (credentials) => {
    try {
      const signedIn = await login(credentials).unwrap();
      dispatch(setCredentials(signedIn));
      navigate(redirect, { replace: true });
    } catch (error) {
      dispatch(signedOut());
      toastErrors(error);
    }
  });

  return (
    <FormContainer>
      <PageTitle title="Sign In" />
      <h1 className="h2 mb-3">Sign In</h1>
      {adminRequired && <Message variant="warning">This page is for admins. Sign in with an admin account to continue.</Message>}
      <Form noValidate onSubmit={submit}>
        <EmailField form={form} />
        <FormField
          form={form}
          name="password"
          label="Password"
          schema={loginBody.shape.password}
          type="password"
          autoComplete="current-password"
          required
        />
        <div className="d-flex flex-wrap align-items-center justify-content-between gap-2">
          <SubmitButton busy={isLoading}>Sign In</SubmitButton>
          <Link to={paths.forgotPassword} className="tap-link">
            Forgot password?
          </Link>
        </div>
      </Form>
      <Row className="py-3">
        <Col>
          New Customer? <Link to={paths.register(redirect)}>Register</Link>
        </Col>
      </Row>
    </FormContainer>
  );
}
