import { type ChangeEvent, useState } from 'react';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import type { UseFormReturn } from 'react-hook-form';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants';
import { type ProductUpdateBody, productUpdateBody } from '../../../shared/schemas/products';
import FormField from '../../components/form/form-field';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useUploadProductImageMutation } from './api';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

/** The product edit form as typed: numbers stay text until checked. */
export interface ProductFields {
  name: string;
  price: string;
  image: string;
  countInStock: string;
  category: string;
  description: string;
}

type ProductForm = UseFormReturn<ProductFields, unknown, ProductUpdateBody>;

/** An image file uploaded to the shop: its address takes the Image URL's place. */
export function useImageUpload(form: ProductForm) {
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

  return { uploading, upload };
}

/** The product's image: its URL, an upload that replaces it, and a preview (or why there is none). */
export default function ProductImageFields(props: {
  form: ProductForm;
  uploading: boolean;
  onUpload: (event: ChangeEvent<HTMLInputElement>) => void;
}) {
  const { form, uploading } = props;
  const [brokenPreview, setBrokenPreview] = useState<string | null>(null);
  const [name, image] = form.watch(['name', 'image']);
  const preview = image.trim();

  return (
    <>
      <FormField
        form={form}
        name="image"
        id="product-image"
        label="Image URL"
        className="mb-2"
        schema={productUpdateBody.shape.image}
        required
      />

      <Form.Group controlId="product-image-file" className="mb-3">
        <Form.Label>Upload image</Form.Label>
        <div className="d-flex align-items-center gap-2">
          <Form.Control type="file" accept={IMAGE_TYPES.join(',')} onChange={props.onUpload} disabled={uploading} />
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
    </>
  );
}
