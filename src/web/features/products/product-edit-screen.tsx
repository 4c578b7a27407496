import { type ChangeEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
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
import { useGetProductDetailsQuery, useUpdateProductMutation, useUploadProductImageMutation } from './api';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

/** The product edit form as typed: numbers stay text until checked. */
interface ProductFields {
  name: string;
  price: string;
  image: string;
  countInStock: string;
  category: string;
  description: string;
}

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
  const [brokenPreview, setBrokenPreview] = useState<string | null>(null);
  const [updateProduct, { isLoading: updating }] = useUpdateProductMutation();
  const [uploadImage, { isLoading: uploading }] = useUploadProductImageMutation();

  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const input = event.target;
    const file = input.files?.[0];
    // Cleared at once so choosing the same file again uploads again.
    input.value = '';
    if (!file) return;
    if (!IMAGE_TYPES.includes(file.type)) {
      toastError('Choose a JPEG, PNG or WebP image');
      return;
    }
    if (file.size > MAX_UPLOAD_BYTES) {
      toastError('The image is too large: at most 5 MB');
      return;
    }
    try {
      const result = await uploadImage(file).unwrap();
      form.setValue('image', result.image);
      form.clearErrors('image');
      toastSuccess(result.msg);
    } catch (err) {
      toastErrors(err);
    }
  }

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

  const [name, image] = form.watch(['name', 'image']);
  const preview = image.trim();
  const busy = updating || uploading;

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

      <FormField form={form} name="image" id="product-image" label="Image URL" className="mb-2" schema={fields.image} required />

      <Form.Group controlId="product-image-file" className="mb-3">
        <Form.Label>Upload image</Form.Label>
        <div className="d-flex align-items-center gap-2">
          <Form.Control type="file" accept={IMAGE_TYPES.join(',')} onChange={upload} disabled={uploading} />
          {uploading && (
            <Spinner animation="border" size="sm" role="status">
              <span className="visually-hidden">Uploading the image…</span>
            </Spinner>
          )}
        </div>
        <Form.Text>JPEG, PNG or WebP, at most 5 MB. It replaces the Image URL above.</Form.Text>
      </Form.Group>

      {preview && (
        <div className="mb-3">
          {brokenPreview === preview ? (
            <p className="small text-body-secondary mb-0">This image cannot be shown. Check the Image URL.</p>
          ) : (
            <img
              src={preview}
              alt={`Preview: ${name || 'this product'}`}
              width={200}
              height={200}
              className="rounded border bg-light"
              style={{ objectFit: 'contain' }}
              onError={() => setBrokenPreview(preview)}
            />
          )}
        </div>
      )}

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
