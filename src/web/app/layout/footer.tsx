import Container from 'react-bootstrap/Container';
import { useShopSettings } from '../../lib/shop-settings';

/** 254712345678 as Kenyans write it: 0712 345 678. */
function localPhone(msisdn: string): string {
  const local = `0${msisdn.slice(3)}`;
  return `${local.slice(0, 4)} ${local.slice(4, 7)} ${local.slice(7)}`;
}

/**
 * The product name and the current year (docs/product-rules.md, What the shop offers), and the
 * shop's contacts when the merchant has set them (docs/settings.md).
 */
export default function Footer() {
  const { shopName, contactPhone, contactEmail } = useShopSettings();
  return (
    <footer className="border-top mt-5 py-4 bg-body-tertiary">
      <Container className="text-center text-body-secondary small">
        {(contactPhone || contactEmail) && (
          <p className="mb-1 d-flex flex-wrap justify-content-center column-gap-3">
            {contactPhone && (
              <a href={`tel:+${contactPhone}`} className="link-secondary">
                {localPhone(contactPhone)}
              </a>
            )}
            {contactEmail && (
              <a href={`mailto:${contactEmail}`} className="link-secondary text-break">
                {contactEmail}
              </a>
            )}
          </p>
        )}
        {shopName} &copy; {new Date().getFullYear()}
      </Container>
    </footer>
  );
}
