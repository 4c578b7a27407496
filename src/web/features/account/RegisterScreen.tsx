import { type FormEvent, useEffect, useState } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { paths, safeRedirect } from '../../app/paths';
import { useAppDispatch, useAppSelector } from '../../app/store';
import FormContainer from '../../components/FormContainer';
import PageTitle from '../../components/PageTitle';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { EmailField, NewPasswordFields } from './AccountFields';
import { useRegisterMutation } from './api';
import { setCredentials, signedOut } from './authSlice';
import SubmitButton from './SubmitButton';

/** Sign-up (docs/product-rules.md, Screens): a new account is signed in at once and goes on to the `redirect` target. */
export default function RegisterScreen() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [register, { isLoading }] = useRegisterMutation();
  const user = useAppSelector((s) => s.auth.user);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const redirect = safeRedirect(searchParams.get('redirect'));

  useEffect(() => {
    if (user) navigate(redirect, { replace: true });
  }, [user, redirect, navigate]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (password !== confirmPassword) {
      toastError('Passwords do not match');
      return;
    }
    try {
      const created = await register({ name, email, password }).unwrap();
      dispatch(setCredentials(created));
      toastSuccess('Registration successful');
      navigate(redirect, { replace: true });
    } catch (error) {
      dispatch(signedOut());
      toastErrors(error);
    }
  }

  return (
    <FormContainer>
      <PageTitle title="Sign Up" />
      <h1 className="h2 mb-3">Sign Up</h1>
      <Form onSubmit={submit}>
        <Form.Group className="mb-3" controlId="name">
          <Form.Label>Name</Form.Label>
          <Form.Control
            type="text"
            autoComplete="name"
            autoCapitalize="words"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Form.Group>
        <EmailField value={email} onChange={setEmail} />
        <NewPasswordFields
          password={password}
          confirmPassword={confirmPassword}
          onPassword={setPassword}
          onConfirmPassword={setConfirmPassword}
        />
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
