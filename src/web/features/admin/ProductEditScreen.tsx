import { type ChangeEvent, type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useNavigate, useParams } from 'react-router';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import type { ProductDetail } from '../../../shared/schemas/products';
import { paths } from '../../app/paths';
import FormContainer from '../../components/FormContainer';
import Loader from '../../components/Loader';
import Message from '../../components/Message';
import PageTitle from '../../components/PageTitle';
import { errorMessage } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useGetProductDetailsQuery } from '../catalog/api';
import { useUpdateProductMutation, useUploadProductImageMutation } from './api';
import { checkProduct, type ProductFieldErrors, type ProductFields } from './productForm';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

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
  const [fields, setFields] = useState<ProductFields>(() => fieldsOf(product));
  const [errors, setErrors] = useState<ProductFieldErrors>({});
  const [brokenPreview, setBrokenPreview] = useState<string | null>(null);
  const [updateProduct, { isLoading: updating }] = useUpdateProductMutation();
  const [uploadImage, { isLoading: uploading }] = useUploadProductImageMutation();

  function change(field: keyof ProductFields) {
    return (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const value = event.target.value;
      setFields((current) => ({ ...current, [field]: value }));
      // A corrected field stops showing its old complaint.
      setErrors((current) => ({ ...current, [field]: undefined }));
    };
  }

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
      setFields((current) => ({ ...current, image: result.image }));
      setErrors((current) => ({ ...current, image: undefined }));
      toastSuccess(result.msg);
    } catch (err) {
      toastErrors(err);
    }
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const check = checkProduct(fields);
    if (!check.ok) {
      setErrors(check.errors);
      for (const message of Object.values(check.errors)) if (message) toastError(message);
      return;
    }
    try {
      // Stock is sent only when the admin changed it: sales made while this form was open must
      // not be put back on the shelf by saving an unchanged count.
      const { countInStock, ...rest } = check.product;
      const stockEdited = fields.countInStock.trim() !== String(product.countInStock);
      await updateProduct({ id: product._id, ...rest, ...(stockEdited && { countInStock }) }).unwrap();
      toastSuccess('Product Updated.');
      navigate(paths.admin.products());
    } catch (err) {
      toastErrors(err);
    }
  }

  const preview = fields.image.trim();
  const busy = updating || uploading;

  return (
    <Form onSubmit={submit} noValidate>
      <Form.Group controlId="product-name" className="mb-3">
        <Form.Label>Name</Form.Label>
        <Form.Control value={fields.name} onChange={change('name')} maxLength={200} isInvalid={!!errors.name} required />
        <Form.Control.Feedback type="invalid">{errors.name}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="product-price" className="mb-3">
        <Form.Label>Price</Form.Label>
        <Form.Control
          type="number"
          inputMode="decimal"
          min={0}
          step={0.01}
          value={fields.price}
          onChange={change('price')}
          isInvalid={!!errors.price}
          required
        />
        <Form.Control.Feedback type="invalid">{errors.price}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="product-image" className="mb-2">
        <Form.Label>Image URL</Form.Label>
        <Form.Control value={fields.image} onChange={change('image')} maxLength={500} isInvalid={!!errors.image} required />
        <Form.Control.Feedback type="invalid">{errors.image}</Form.Control.Feedback>
      </Form.Group>

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
              alt={`Preview: ${fields.name || 'this product'}`}
              width={200}
              height={200}
              className="rounded border bg-light"
              style={{ objectFit: 'contain' }}
              onError={() => setBrokenPreview(preview)}
            />
          )}
        </div>
      )}

      <Form.Group controlId="product-count-in-stock" className="mb-3">
        <Form.Label>Count In Stock</Form.Label>
        <Form.Control
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          value={fields.countInStock}
          onChange={change('countInStock')}
          isInvalid={!!errors.countInStock}
          required
        />
        <Form.Control.Feedback type="invalid">{errors.countInStock}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="product-category" className="mb-3">
        <Form.Label>Category</Form.Label>
        <Form.Control
          value={fields.category}
          onChange={change('category')}
          maxLength={100}
          isInvalid={!!errors.category}
          required
        />
        <Form.Control.Feedback type="invalid">{errors.category}</Form.Control.Feedback>
      </Form.Group>

      <Form.Group controlId="product-description" className="mb-3">
        <Form.Label>Description</Form.Label>
        <Form.Control
          as="textarea"
          rows={4}
          value={fields.description}
          onChange={change('description')}
          maxLength={5000}
          isInvalid={!!errors.description}
        />
        <Form.Control.Feedback type="invalid">{errors.description}</Form.Control.Feedback>
      </Form.Group>

      <Button type="submit" variant="dark" disabled={busy}>
        {updating && <Spinner animation="border" size="sm" aria-hidden="true" className="me-2" />}
        Update
      </Button>
    </Form>
  );
}
