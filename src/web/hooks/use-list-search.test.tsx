import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { type ListSearchOptions, listAddress, pageFrom, useListSearch } from './use-list-search';

afterEach(cleanup);

/** A list screen reduced to what the hook gives it: every value shown, every action a button. */
function Probe({ options }: { options: ListSearchOptions }) {
  const list = useListSearch(options);
  const location = useLocation();
  return (
    <>
      <output data-testid="location">{location.pathname + location.search}</output>
      <output data-testid="page">{list.page}</output>
      <output data-testid="keyword">{list.keyword}</output>
      <output data-testid="status">{list.params.get('status') ?? ''}</output>
      <output data-testid="link">{list.link({ status: 'paid' })}</output>
      <output data-testid="page-3">{list.pageLink(3)}</output>
      <output data-testid="page-1">{list.pageLink(1)}</output>
      <form aria-label="List search" onSubmit={list.submitSearch}>
        <input aria-label="Search" value={list.searchText} onChange={(e) => list.setSearchText(e.target.value)} />
        <button type="submit">Go</button>
      </form>
      <button type="button" onClick={() => list.update({ status: 'unpaid' })}>
        Unpaid
      </button>
      <button type="button" onClick={list.clear}>
        Clear
      </button>
    </>
  );
}

function renderList(address: string, options: ListSearchOptions = { path: '/admin/orderlist' }) {
  const element = <Probe options={options} />;
  const router = createMemoryRouter(
    [
      { path: '/admin', element: <p>Dashboard</p> },
      { path: '/admin/orderlist', element },
      { path: '/admin/productlist', element },
      { path: '/admin/productlist/page/:pageNumber', element },
    ],
    { initialEntries: ['/admin', address], initialIndex: 1 },
  );
  render(<RouterProvider router={router} />);
  return router;
}

const shown = (id: string) => screen.getByTestId(id).textContent;
/** Waits for the address to be this one. */
const at = (address: string) => waitFor(() => expect(shown('location')).toBe(address));
const searchBox = () => screen.getByLabelText<HTMLInputElement>('Search');

describe('pageFrom', () => {
  it('takes a whole number from 1, and 1 for anything else', () => {
    expect(pageFrom('3')).toBe(3);
    expect(pageFrom('1')).toBe(1);
    for (const value of ['0', '-2', '2.5', 'two', '', null, undefined]) expect(pageFrom(value), String(value)).toBe(1);
  });
});

describe('listAddress', () => {
  const current = new URLSearchParams('isPaid=true&keyword=kikoi&page=4');

  it('changes the parameters given and starts again at page 1', () => {
    expect(listAddress('/admin/orderlist', current, { isPaid: 'false' })).toBe('/admin/orderlist?isPaid=false&keyword=kikoi');
    expect(listAddress('/admin/orderlist', current, { keyword: null, isPaid: '' })).toBe('/admin/orderlist');
  });

  it('keeps the filters when only the page changes', () => {
    expect(listAddress('/admin/orderlist', current, { page: '2' })).toBe('/admin/orderlist?isPaid=true&keyword=kikoi&page=2');
  });

  it('knows a page parameter by another name', () => {
    const ledger = new URLSearchParams('status=exception&pageNumber=2');
    expect(listAddress('/admin/payments', ledger, { status: 'unmatched' }, 'pageNumber')).toBe(
      '/admin/payments?status=unmatched',
    );
    expect(listAddress('/admin/payments', ledger, { pageNumber: '3' }, 'pageNumber')).toBe(
      '/admin/payments?status=exception&pageNumber=3',
    );
  });
});

describe('useListSearch, page in the query', () => {
  it('reads the page, the trimmed keyword and the filters from the address', () => {
    renderList('/admin/orderlist?page=2&keyword=%20kikoi%20&status=paid');
    expect(shown('page')).toBe('2');
    expect(shown('keyword')).toBe('kikoi');
    expect(shown('status')).toBe('paid');
    expect(searchBox().value).toBe('kikoi');
  });

  it('takes page 1 for a page that is not a whole number from 1', () => {
    renderList('/admin/orderlist?page=0');
    expect(shown('page')).toBe('1');
  });

  it('links to a filter at page 1 and to another page with the same filters', () => {
    renderList('/admin/orderlist?keyword=kikoi&page=2');
    expect(shown('link')).toBe('/admin/orderlist?keyword=kikoi&status=paid');
    expect(shown('page-3')).toBe('/admin/orderlist?keyword=kikoi&page=3');
    expect(shown('page-1')).toBe('/admin/orderlist?keyword=kikoi');
  });

  it('reads the page from a parameter of another name', () => {
    renderList('/admin/orderlist?status=exception&pageNumber=2', { path: '/admin/orderlist', pageParam: 'pageNumber' });
    expect(shown('page')).toBe('2');
    expect(shown('page-3')).toBe('/admin/orderlist?status=exception&pageNumber=3');
    expect(shown('link')).toBe('/admin/orderlist?status=paid');
  });

  it('replaces the address on a filter change, back at page 1', async () => {
    const router = renderList('/admin/orderlist?keyword=kikoi&page=2');
    fireEvent.click(screen.getByRole('button', { name: 'Unpaid' }));
    await at('/admin/orderlist?keyword=kikoi&status=unpaid');
    expect(router.state.historyAction).toBe('REPLACE');
    // Back leaves the list: the filtered view took the place of the one before it.
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/admin');
  });

  it('searches for the box’s text, trimmed, at page 1, replacing the address', async () => {
    const router = renderList('/admin/orderlist?status=paid&page=3');
    fireEvent.change(searchBox(), { target: { value: '  jiko  ' } });
    fireEvent.submit(screen.getByRole('form', { name: 'List search' }));
    await at('/admin/orderlist?status=paid&keyword=jiko');
    expect(router.state.historyAction).toBe('REPLACE');
    expect(shown('keyword')).toBe('jiko');
    expect(shown('page')).toBe('1');
  });

  it('keeps the search box in step with the address on Back and Forward', async () => {
    const router = renderList('/admin/orderlist?keyword=kikoi');
    await act(() => router.navigate('/admin/orderlist?keyword=jiko'));
    expect(searchBox().value).toBe('jiko');
    await act(() => router.navigate(-1));
    expect(searchBox().value).toBe('kikoi');
    await act(() => router.navigate(1));
    expect(searchBox().value).toBe('jiko');
  });

  it('clears every filter and the search', async () => {
    const router = renderList('/admin/orderlist?status=paid&keyword=kikoi&page=2');
    fireEvent.click(screen.getByRole('button', { name: 'Clear' }));
    await at('/admin/orderlist');
    expect(router.state.historyAction).toBe('REPLACE');
    expect(searchBox().value).toBe('');
  });
});

describe('useListSearch, page in the path', () => {
  const products: ListSearchOptions = {
    pagePath: (page) => (page > 1 ? `/admin/productlist/page/${page}` : '/admin/productlist'),
    searchHistory: 'push',
  };

  it('reads the page from the route and links pages by path', () => {
    renderList('/admin/productlist/page/2?keyword=kikoi', products);
    expect(shown('page')).toBe('2');
    expect(shown('page-3')).toBe('/admin/productlist/page/3?keyword=kikoi');
    expect(shown('page-1')).toBe('/admin/productlist?keyword=kikoi');
    expect(shown('link')).toBe('/admin/productlist?keyword=kikoi&status=paid');
  });

  it('takes page 1 for a path page that is not a whole number from 1', () => {
    renderList('/admin/productlist/page/abc', products);
    expect(shown('page')).toBe('1');
  });

  it('searches from any page to the first one, as a new entry when asked to', async () => {
    const router = renderList('/admin/productlist/page/3', products);
    fireEvent.change(searchBox(), { target: { value: ' lamp ' } });
    fireEvent.submit(screen.getByRole('form', { name: 'List search' }));
    await at('/admin/productlist?keyword=lamp');
    expect(router.state.historyAction).toBe('PUSH');
    await act(() => router.navigate(-1));
    expect(shown('location')).toBe('/admin/productlist/page/3');
  });

  it('clears to the first page', async () => {
    renderList('/admin/productlist/page/3?keyword=lamp', products);
    fireEvent.click(screen.getByRole('button', { name: 'Clear' }));
    await at('/admin/productlist');
  });
});
