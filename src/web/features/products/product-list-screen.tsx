import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate } from 'react-router';
import type { AdminProduct } from '../../../shared/schemas/products';
import ConfirmDialog from '../../components/confirm-dialog';
import { EditIcon } from '../../components/icons';
import { ListSearchField } from '../../components/list/list-controls';
import { IdText, type ListColumn, ResponsiveList, RowActions } from '../../components/list/table-parts';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import Paginate from '../../components/paginate';
import Price from '../../components/price';
import { paths } from '../../config/paths';
import { useConfirmedAction, useConfirmedDelete } from '../../hooks/use-confirmed-delete';
import { type ListSearch, useListSearch } from '../../hooks/use-list-search';
import { errorMessage } from '../../lib/errors';
import { useCreateProductMutation, useDeleteProductMutation, useGetAdminProductsQuery } from './api';

const columns: ListColumn<AdminProduct>[] = [
  { header: 'ID', cell: (product) => <IdText id={product._id} /> },
  {
    header: 'NAME',
    cell: (product) => (
      <>
        {product.name}
        {product.isDraft && (
          <Badge bg="warning" text="dark" className="ms-2" title="Not in the shop until it has a name, price and image">
            Draft
          </Badge>
        )}
      </>
    ),
  },
  { header: 'PRICE', cell: (product) => <Price value={product.price} />, nowrap: true },
  { header: 'CATEGORY', cell: (product) => product.category },
];

function CreateButton({ creating, onClick }: { creating: boolean; onClick: () => void }) {
  return (
    <Button variant="dark" onClick={onClick} disabled={creating}>
      {creating ? (
        <>
          <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />
          Creating…
        </>
      ) : (
        'Create Product'
      )}
    </Button>
  );
}

/** The search box; under it, while a search is on, how many products match and the way back to all. */
function ProductSearch({ list, count }: { list: ListSearch; count: number | undefined }) {
  const { keyword } = list;
  return (
    <Form onSubmit={list.submitSearch} role="search" className="mb-3">
      <ListSearchField
        id="admin-product-search"
        label="Search products"
        placeholder="Name, category or description"
        value={list.searchText}
        onChange={list.setSearchText}
      />
      {keyword && (
        <div className="mt-2 small d-flex flex-wrap align-items-center gap-2">
          <span>
            {count !== undefined ? `${count} ${count === 1 ? 'match' : 'matches'}` : 'Results'} for “{keyword}”
          </span>
          <Link to={paths.admin.products()}>Show all products</Link>
        </div>
      )}
    </Form>
  );
}

/** Every product, drafts too (marked), searchable and paged, with create, edit and delete (docs/product-rules.md, Screens: Admin product list). */
export default function ProductListScreen() {
  // The page is in the path (/admin/productlist/page/2), the search in the query string so paging keeps it.
  const list = useListSearch({ pagePath: paths.admin.products, searchHistory: 'push' });
  const { page, keyword } = list;
  const navigate = useNavigate();

  const { data, isLoading, isFetching, error } = useGetAdminProductsQuery({ pageNumber: page, keyword });
  const [createProduct] = useCreateProductMutation();
  const [deleteProduct] = useDeleteProductMutation();
  const creation = useConfirmedAction<void, { _id: string }>(() => createProduct().unwrap(), {
    success: () => 'Product created. Fill in its details.',
    onDone: (product) => navigate(paths.admin.productEdit(product._id)),
  });
  const deletion = useConfirmedDelete((product: AdminProduct) => deleteProduct(product._id).unwrap());

  return (
    <>
      <PageTitle title="Products" />
      <Row className="align-items-center g-2 mb-3">
        <Col>
          <h1 className="h2 mb-0">Products</h1>
        </Col>
        <Col xs="auto">
          <CreateButton creating={creation.busy} onClick={() => creation.ask()} />
        </Col>
      </Row>
      <ProductSearch list={list} count={data?.count} />

      {isLoading ? (
        <Loader label="Loading products…" />
      ) : error ? (
        <Message variant="danger">{errorMessage(error)}</Message>
      ) : !data || data.products.length === 0 ? (
        <Message>
          {keyword ? 'No products match this search.' : page > 1 ? 'There are no products on this page.' : 'No products yet.'}{' '}
          {(keyword || page > 1) && (
            <Link to={paths.admin.products()} className="alert-link">
              Back to the first page
            </Link>
          )}
        </Message>
      ) : (
        <div className={isFetching ? 'opacity-75' : undefined} aria-busy={isFetching}>
          <ResponsiveList
            label="Products"
            items={data.products}
            rowKey={(product) => product._id}
            columns={columns}
            actions={(product, layout) => (
              <RowActions
                layout={layout}
                to={paths.admin.productEdit(product._id)}
                linkLabel={`Edit ${product.name}`}
                link={<EditIcon />}
                deleteLabel={`Delete ${product.name}`}
                deleting={deletion.pending?._id === product._id}
                onDelete={() => deletion.ask(product)}
              />
            )}
          />
          <Paginate pages={data.pages} page={data.page} linkTo={list.pageLink} />
        </div>
      )}

      <ConfirmDialog
        {...creation.dialog}
        title="Confirm Creation"
        body="Are you sure you want to create a new product?"
        confirmLabel="Create"
        confirmVariant="primary"
      />
      <ConfirmDialog
        {...deletion.dialog}
        title="Confirm Deletion"
        body="Are you sure you want to delete this product?"
        confirmLabel="Delete"
      />
    </>
  );
}
