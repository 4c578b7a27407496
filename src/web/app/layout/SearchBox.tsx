import { type FormEvent, useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useNavigate, useParams } from 'react-router';
import { SearchIcon } from '../../components/icons';
import { paths } from '../paths';

/** The navigation bar's search: a blank or whitespace keyword goes home (spec §2). */
export default function SearchBox() {
  const navigate = useNavigate();
  const { keyword: current } = useParams();
  const [keyword, setKeyword] = useState(current ?? '');
  // Follow the address: the box shows the current search, and empties when the shopper leaves it.
  useEffect(() => setKeyword(current ?? ''), [current]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = keyword.trim();
    navigate(trimmed ? paths.search(trimmed) : paths.home);
  }

  return (
    <Form onSubmit={submit} className="d-flex flex-grow-1 my-2 my-lg-0 me-lg-3 search-box" role="search">
      <Form.Control
        type="search"
        name="q"
        value={keyword}
        onChange={(e) => setKeyword(e.target.value)}
        placeholder="Search Product..."
        aria-label="Search the shop"
        className="me-2"
        enterKeyHint="search"
      />
      <Button type="submit" variant="outline-light" aria-label="Search">
        <SearchIcon />
      </Button>
    </Form>
  );
}
