import { type FormEvent, useEffect, useState } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import { Link } from 'react-router';
import type { ProfileUpdateBody } from '../../../shared/schemas/users';
import { paths } from '../../app/paths';
import { useAppDispatch, useAppSelector } from '../../app/store';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetMyOrdersQuery } from '../orders/api';
import { EmailField, NewPasswordFields } from './AccountFields';
import { useGetProfileQuery, useUpdateProfileMutation } from './api';
import { setCredentials } from './authSlice';
import MyOrdersTable from './MyOrdersTable';
import SubmitButton from './SubmitButton';

const NO_ORDERS =
  'There are no orders associated with your account. Please return to the order menu to place a new order or review existing ones.';

/** The signed-in shopper's details, editable, beside their orders (docs/product-rules.md, Screens: Profile). */
export default function ProfileScreen() {
  return (
    <Row className="g-4">
      <PageTitle title="User Profile" />
      <Col md={3}>
        <ProfileForm />
      </Col>
      <Col md={9}>
        <MyOrders />
      </Col>
    </Row>
  );
}

function ProfileForm() {
  // The router lets only signed-in users here; the stored user fills the form until the profile loads.
  const storedUser = useAppSelector((s) => s.auth.user);
  const userId = storedUser?._id ?? '';
  const profile = useGetProfileQuery(userId, { skip: !storedUser });
  const [updateProfile, { isLoading: isUpdating }] = useUpdateProfileMutation();
  const dispatch = useAppDispatch();

  const [name, setName] = useState(storedUser?.name ?? '');
  const [email, setEmail] = useState(storedUser?.email ?? '');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  // A new email or password needs the current password; a new name alone does not.
  const savedEmail = profile.data?.email ?? storedUser?.email ?? '';
  const needsCurrentPassword = password !== '' || email.trim().toLowerCase() !== savedEmail;

  // Whenever a fresh profile arrives (first load, or after an update), show what the server holds.
  useEffect(() => {
    if (profile.data) {
      setName(profile.data.name);
      setEmail(profile.data.email);
    }
  }, [profile.data]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (password !== confirmPassword) {
      toastError('Passwords do not match');
      return;
    }
    // An empty password means "keep the current one" (docs/product-rules.md, Validation).
    const body: ProfileUpdateBody = {
      _id: userId,
      name,
      email,
      ...(password && { password }),
      ...(currentPassword && { currentPassword }),
    };
    try {
      const updated = await updateProfile(body).unwrap();
      dispatch(setCredentials(updated));
      setPassword('');
      setConfirmPassword('');
      setCurrentPassword('');
      toastSuccess('User updated.');
    } catch (error) {
      toastErrors(error);
    }
  }

  return (
    <>
      <h1 className="h3 mb-3">User Profile</h1>
      {profile.isError && <Message variant="danger">Your profile could not be loaded: {errorMessage(profile.error)}</Message>}
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
          optional
          password={password}
          confirmPassword={confirmPassword}
          onPassword={setPassword}
          onConfirmPassword={setConfirmPassword}
        />
        <Form.Group className="mb-3" controlId="currentPassword">
          <Form.Label>Current password</Form.Label>
          <Form.Control
            type="password"
            autoComplete="current-password"
            required={needsCurrentPassword}
            aria-describedby="current-password-help"
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
          />
          <Form.Text id="current-password-help">Needed to change your email or password.</Form.Text>
        </Form.Group>
        <SubmitButton busy={isUpdating}>Update</SubmitButton>
      </Form>
    </>
  );
}

function MyOrders() {
  const { data: orders, isLoading, isError, error } = useGetMyOrdersQuery();

  let content: React.ReactNode;
  if (isLoading) content = <Loader label="Loading your orders…" />;
  else if (isError) content = <Message variant="danger">{errorMessage(error)}</Message>;
  else if (!orders || orders.length === 0)
    content = (
      <>
        <Message>{NO_ORDERS}</Message>
        <Link to={paths.home} className="btn btn-outline-dark">
          Back Home
        </Link>
      </>
    );
  else content = <MyOrdersTable orders={orders} />;

  return (
    <>
      <h2 className="h3 mb-3">My Orders</h2>
      {content}
    </>
  );
}
