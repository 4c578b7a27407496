import { randomInt } from 'node:crypto';
import { ORDER_NUMBER_ALPHABET, ORDER_NUMBER_LENGTH } from '../../shared/order-number.js';

/** A fresh random order number; the unique index on orders.number catches the rare repeat. */
export function drawOrderNumber(): string {
  let number = '';
  for (let i = 0; i < ORDER_NUMBER_LENGTH; i += 1) number += ORDER_NUMBER_ALPHABET[randomInt(ORDER_NUMBER_ALPHABET.length)];
  return number;
}
