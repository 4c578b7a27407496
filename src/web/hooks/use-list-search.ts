import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';

/** Changes to a list's query parameters: a value sets one, null or '' removes it. */
export type ListChanges = Record<string, string | null>;

/** A page number from the address: a whole number from 1, else 1. */
export function pageFrom(value: string | null | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The address of an admin list with some of its parameters changed (null or '' removes one).
 * Any change but the page's own (`pageParam`) starts again at page 1.
 */
export function listAddress(path: string, current: URLSearchParams, changes: ListChanges, pageParam = 'page'): string {
  const next = new URLSearchParams(current);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') next.delete(name);
    else next.set(name, value);
  }
  if (!(pageParam in changes)) next.delete(pageParam);
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}

/** Where a list keeps its page number. */
export type ListPages =
  /** In the query string (`?page=2`, or `?pageNumber=2` for the payments), beside the filters. */
  | { path: string; pageParam?: string }
  /** In the route's `:pageNumber` (the product list's /admin/productlist/page/2): `pagePath` gives a page's path. */
  | { pagePath: (page: number) => string };

export type ListSearchOptions = ListPages & {
  /**
   * How a submitted search changes the address: it replaces it, as a filter does (the default), or
   * adds an entry that Back returns from (the product list).
   */
  searchHistory?: 'replace' | 'push';
};

export interface ListSearch {
  /** The address's query parameters, for the list's own filters. */
  params: URLSearchParams;
  /** The page asked for: a whole number from 1, else 1. */
  page: number;
  /** The search in the address (`?keyword=`), trimmed. */
  keyword: string;
  /** What the search box holds: the keyword, again whenever the address changes it (Back, Forward, a link). */
  searchText: string;
  setSearchText: (text: string) => void;
  /** The address with some parameters changed, at page 1. */
  link: (changes: ListChanges) => string;
  /** The address of a page of the list as it is filtered now. */
  pageLink: (page: number) => string;
  /** A filter changed: the address is replaced, at page 1. */
  update: (changes: ListChanges) => void;
  /** The search form's submit: the box's text, trimmed, becomes the keyword, at page 1. */
  submitSearch: (event: FormEvent<HTMLFormElement>) => void;
  /** Every filter and the search removed: the list's first page, the address replaced. */
  clear: () => void;
}

/**
 * The state an admin list keeps in its address: the page, the search and the filters, so a view
 * can be linked, survives a reload and follows Back and Forward.
 */
export function useListSearch(options: ListSearchOptions): ListSearch {
  const [params] = useSearchParams();
  const { pageNumber } = useParams();
  const navigate = useNavigate();
  const pagePath = 'pagePath' in options ? options.pagePath : undefined;
  const pageParam = 'pagePath' in options ? undefined : (options.pageParam ?? 'page');
  const firstPage = 'pagePath' in options ? options.pagePath(1) : options.path;

  const page = pageFrom(pagePath ? pageNumber : params.get(pageParam ?? 'page'));
  const keyword = (params.get('keyword') ?? '').trim();
  const [searchText, setSearchText] = useState(keyword);
  useEffect(() => setSearchText(keyword), [keyword]);

  function addressOf(changes: ListChanges, at: number): string {
    if (pageParam) return listAddress(firstPage, params, { ...changes, [pageParam]: at > 1 ? String(at) : null }, pageParam);
    return listAddress(pagePath ? pagePath(at) : firstPage, params, changes);
  }
  const link = (changes: ListChanges) => addressOf(changes, 1);
  const update = (changes: ListChanges) => navigate(link(changes), { replace: true });

  return {
    params,
    page,
    keyword,
    searchText,
    setSearchText,
    link,
    pageLink: (at) => addressOf({}, at),
    update,
    submitSearch(event) {
      event.preventDefault();
      navigate(link({ keyword: searchText.trim() }), { replace: options.searchHistory !== 'push' });
    },
    clear: () => navigate(firstPage, { replace: true }),
  };
}
