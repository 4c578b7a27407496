import { describe, expect, it } from 'vitest';
import { listingQuery, paths, safeRedirect } from '../config/paths';
import { filtersFromQuery } from '../features/products/listing-controls';

describe('safeRedirect', () => {
  it('keeps paths of this site', () => {
    for (const path of ['/', '/shipping', '/products/abc?x=1#reviews', '/search/chai%20masala', '/admin/orderlist']) {
      expect(safeRedirect(path)).toBe(path);
    }
  });

  it('sends everything else home', () => {
    const payloads = [
      null,
      '',
      'shipping',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/%09/evil.example',
      '/\n/evil.example',
      '/\r\n/evil.example',
      '/%0a/evil.example',
      '/%0d/evil.example',
      '%2F%2Fevil.example',
      '/%2F/evil.example',
      '/%5Cevil.example',
      'https://evil.example/',
      'http:evil.example',
      'javascript:alert(1)',
      '/\u0000/evil.example',
      '/%E0%A4%A',
    ];
    for (const payload of payloads) expect(safeRedirect(payload), JSON.stringify(payload)).toBe('/');
  });
});

describe('category and filter links', () => {
  it('encodes a category name in its path, and pages after the first', () => {
    expect(paths.category('Kitchen & Home')).toBe('/category/Kitchen%20%26%20Home');
    expect(paths.category('TV/Audio', 3)).toBe('/category/TV%2FAudio/page/3');
    expect(paths.category('Phones', 1)).toBe('/category/Phones');
  });

  it('writes only the filters given, and reads back what it wrote', () => {
    expect(listingQuery({})).toBe('');
    // A search's category comes first, and reads back as it was.
    const inCategory = listingQuery({ category: 'TV & Audio', sort: 'rating' });
    expect(inCategory).toBe('?category=TV+%26+Audio&sort=rating');
    expect(filtersFromQuery(new URLSearchParams(inCategory))).toEqual({ category: 'TV & Audio', sort: 'rating' });
    expect(filtersFromQuery(new URLSearchParams(`category=${'x'.repeat(101)}`))).toEqual({});
    expect(filtersFromQuery(new URLSearchParams('category=%20%20'))).toEqual({});
    const query = listingQuery({ sort: 'price_desc', minPrice: 250.5, maxPrice: 4000 });
    expect(query).toBe('?sort=price_desc&minPrice=250.5&maxPrice=4000');
    expect(filtersFromQuery(new URLSearchParams(query))).toEqual({ sort: 'price_desc', minPrice: 250.5, maxPrice: 4000 });
  });

  it('leaves out what the API would refuse, and puts a reversed range in order', () => {
    expect(filtersFromQuery(new URLSearchParams('sort=cheapest&minPrice=-5&maxPrice=abc'))).toEqual({});
    expect(filtersFromQuery(new URLSearchParams('minPrice=1.234&maxPrice=1e3'))).toEqual({});
    expect(filtersFromQuery(new URLSearchParams('minPrice=900&maxPrice=100'))).toEqual({ minPrice: 100, maxPrice: 900 });
  });
});
