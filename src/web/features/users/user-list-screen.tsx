import { useEffect, useState } from 'react';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import type { PublicUser } from '../../../shared/schemas/users';
import ConfirmDialog from '../../components/confirm-dialog';
import { CheckIcon, CrossIcon, EditIcon } from '../../components/icons';
import { ListSearchField } from '../../components/list/list-controls';
import { IdText, type ListColumn, ResponsiveList, RowActions } from '../../components/list/table-parts';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Paginate from '../../components/paginate';
import { paths } from '../../config/paths';
import { useConfirmedDelete } from '../../hooks/use-confirmed-delete';
import { useListSearch } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { useAppSelector } from '../../stores/store';
import { useDeleteUserMutation, useGetUsersPageQuery } from './api';

const columns: ListColumn<PublicUser>[] = [
  { header: 'ID', cell: (user) => <IdText id={user._id} /> },
  { header: 'NAME', cell: (user) => user.name },
  { header: 'EMAIL', cell: (user) => <a href={`mailto:${user.email}`}>{user.email}</a> },
  {
    header: 'ADMIN',
    cell: (user) =>
      user.isAdmin ? (
        <CheckIcon className="text-success" title="Admin" />
      ) : (
        <CrossIcon className="text-danger" title="Not admin" />
      ),
  },
];

/**
 * Every account, newest first, searchable and paged, with edit and delete (docs/product-rules.md, Screens: Admin user
 * list). Your own account cannot be deleted (the server refuses it), so its Delete is disabled.
 */
export default function UserListScreen() {
  const list = useListSearch({ path: paths.admin.users });
  const { page, keyword } = list;
  const adminsOnly = list.params.get('isAdmin') === 'true';
  const me = useAppSelector((state) => state.auth.user);

  const { data, isLoading, isFetching, error } = useGetUsersPageQuery({
    pageNumber: page,
    ...(keyword && { keyword }),
    ...(adminsOnly && { isAdmin: true }),
  });
  const [deleteUser] = useDeleteUserMutation();
  const deletion = useConfirmedDelete((user: PublicUser) => deleteUser(user._id).unwrap());
  // The switch follows the tap at once: the address changes in a router transition, and a switch
  // bound to the address alone would spring back until that transition commits.
  const [adminsOnlyShown, setAdminsOnlyShown] = useState(adminsOnly);
  useEffect(() => setAdminsOnlyShown(adminsOnly), [adminsOnly]);

  const filtering = keyword !== '' || adminsOnly;
  return (
    <>
      <PageTitle title="Users" />
      <h1 className="h2 mb-3">Users</h1>

      <Form role="search" onSubmit={list.submitSearch} className="mb-3">
        <Row className="g-2 align-items-end">
          <Col xs={12} md={6}>
            <ListSearchField
              id="admin-user-search"
              label="Search users"
              placeholder="Name or email"
              value={list.searchText}
              onChange={list.setSearchText}
            />
          </Col>
          <Col xs="auto" className="pb-2">
            <Form.Check
              id="admin-user-admins-only"
              type="switch"
              label="Admins only"
              checked={adminsOnlyShown}
              onChange={(e) => {
                setAdminsOnlyShown(e.target.checked);
                list.update({ isAdmin: e.target.checked ? 'true' : null });
              }}
            />
          </Col>
        </Row>
      </Form>

      {isLoading ? (
        <Loader label="Loading users…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.users.length === 0 ? (
        <Message>
          {filtering ? 'No users match this search' : page > 1 ? 'There are no users on this page.' : 'No users yet'}
        </Message>
      ) : (
        <div className={isFetching ? 'opacity-75' : undefined} aria-busy={isFetching}>
          <ResponsiveList
            label="Users"
            items={data.users}
            rowKey={(user) => user._id}
            columns={columns}
            actions={(user, layout) => (
              <RowActions
                layout={layout}
                to={paths.admin.userEdit(user._id)}
                linkLabel={`Edit ${user.name}`}
                link={<EditIcon />}
                deleteLabel={`Delete ${user.name}`}
                deleting={deletion.pending?._id === user._id}
                onDelete={() => deletion.ask(user)}
                cannotDelete={user._id === me?._id ? 'You cannot delete your own account' : undefined}
              />
            )}
          />
          <Paginate pages={data.pages} page={data.page} linkTo={list.pageLink} />
        </div>
      )}

      <ConfirmDialog
        {...deletion.dialog}
        title="Confirm Deletion"
        body="Are you sure you want to delete this user?"
        confirmLabel="Delete"
      />
    </>
  );
}
