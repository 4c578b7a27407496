import { constants, createPublicKey, type KeyObject, publicEncrypt, X509Certificate } from 'node:crypto';

/**
 * Daraja's SecurityCredential (docs/payments.md, SecurityCredential): the initiator's plain
 * password, encrypted with the RSA public key of Safaricom's certificate for the environment using
 * PKCS#1 v1.5 padding, then base64. The padding is random, so every call gives another string, all
 * equally valid. This is the one place that encrypts: configuration holds the plain password.
 */

/**
 * The public key of a certificate or key as Safaricom hands it out: a PEM certificate, a PEM
 * public key (the simulator's), a DER certificate (.cer), or a PEM body pasted on one line.
 */
export function credentialKeyFrom(material: Buffer | string): KeyObject {
  const text = Buffer.isBuffer(material) ? material.toString('latin1') : material;
  if (text.includes('-----BEGIN')) return createPublicKey(text);
  const oneLine = text.trim();
  if (/^[A-Za-z0-9+/=\s]+$/.test(oneLine) && oneLine.length > 100) {
    const lines = oneLine.replace(/\s+/g, '').match(/.{1,64}/g) ?? [];
    return createPublicKey(`-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`);
  }
  const der = Buffer.isBuffer(material) ? material : Buffer.from(material, 'latin1');
  return new X509Certificate(der).publicKey;
}

export function securityCredential(password: string, key: KeyObject): string {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password, 'utf8')).toString('base64');
}
