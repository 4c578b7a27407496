import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router';
import { type ProductDetail, type ProductUpdateBody, productUpdateBody } from '../../../shared/schemas/products';
import FormField from '../../components/form/form-field';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import FormContainer from '../../components/form-container';
import Loader from '../../components/loader';
import Message from '../../components/message';
import PageTitle from '../../components/page-title';
import { paths } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetProductDetailsQuery, useUpdateProductMutation } from './api';
import ProductImageFields, { type ProductFields, useImageUpload } from './product-image-fields';

const fields = productUpdateBody.shape;

function fieldsOf(product: ProductDetail): ProductFields {
  return {
    name: product.name,
    price: String(product.price),
    image: product.image,
    countInStock: String(product.countInStock),
    category: product.category,
    description: product.description,
  };
}

/** Edit one product; loads it, then hands it to the form (docs/product-rules.md, Screens: Product edit). */
export default function ProductEditScreen() {
  const { id = '' } = useParams();
  const { data: product, isLoading, error } = useGetProductDetailsQuery(id);

  return (
    <>
      <PageTitle title="Edit Product" />
      <Link to={paths.admin.products()} className="btn btn-light my-2">
        Go Back
      </Link>
      <FormContainer>
        <h1 className="h2 mb-3">Edit Product</h1>
        {isLoading ? (
          <Loader label="Loading the product…" />
        ) : error || !product ? (
          <Message variant="danger">{errorMessage(error)}</Message>
        ) : (
          <>
            {'isDraft' in product && product.isDraft === true && (
              <Message variant="warning">
                Draft: shoppers cannot see this product until it has a name, a price above 0 and an image of its own.
              </Message>
            )}
            <ProductEditForm key={product._id} product={product} />
          </>
        )}
      </FormContainer>
    </>
  );
}

function ProductEditForm({ product }: { product: ProductDetail }) {
  const navigate = useNavigate();
  const form = useZodForm<ProductFields, ProductUpdateBody>(productUpdateBody, fieldsOf(product));
  const [updateProduct, { isLoading: updating }] = useUpdateProductMutation();
  const image = useImageUpload(form);

  // The screen refuses what the server would, with its messages, under each field and as toasts.
  const submit = form.handleSubmit(
    async (value) => {
      try {
        // Stock is sent only when the admin changed it: sales made while this form was open must
        // not be put back on the shelf by saving an unchanged count.
        const stockEdited = form.getValues('countInStock').trim() !== String(product.countInStock);
        await updateProduct({
          id: product._id,
          name: value.name ?? '',
          price: value.price ?? 0,
          image: value.image ?? '',
          category: value.category ?? '',
          description: value.description ?? '',
          ...(stockEdited && { countInStock: value.countInStock ?? 0 }),
        }).unwrap();
        toastSuccess('Product Updated.');
        navigate(paths.admin.products());
      } catch (err) {
        placeServerErrors(form, err);
        toastErrors(err);
      }
    },
    (errors) => {
      for (const message of fieldMessages(errors)) toastError(message);
    },
  );

  const busy = updating || image.uploading;

  return (
    <Form onSubmit={submit} noValidate>
      <FormField form={form} name="name" id="product-name" label="Name" schema={fields.name} required />

      <FormField
        form={form}
        name="price"
        id="product-price"
        label="Price"
        type="number"
        inputMode="decimal"
        step={0.01}
        schema={fields.price}
        required
      />

      <ProductImageFields form={form} uploading={image.uploading} onUpload={image.upload} />

      <FormField
        form={form}
        name="countInStock"
        id="product-count-in-stock"
        label="Count In Stock"
        type="number"
        inputMode="numeric"
        step={1}
        schema={fields.countInStock}
        required
      />

      <FormField form={form} name="category" id="product-category" label="Category" schema={fields.category} required />

      <FormField
        form={form}
        name="description"
        id="product-description"
        label="Description"
        control="textarea"
        rows={4}
        schema={fields.description}
      />

      <Button type="submit" variant="dark" disabled={busy}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
