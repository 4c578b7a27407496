import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { SearchIcon } from '../icons';

/** An admin list's search box: the label above, the field and its button in one row. */
export function ListSearchField(props: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Form.Group controlId={props.id}>
      <Form.Label>{props.label}</Form.Label>
      <InputGroup>
        <Form.Control
          type="search"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          maxLength={100}
          placeholder={props.placeholder}
        />
        <Button type="submit" variant="outline-dark" aria-label="Search">
          <SearchIcon />
        </Button>
      </InputGroup>
    </Form.Group>
  );
}

/**
 * The address of an admin list with some of its parameters changed (null or '' removes one).
 * Any change but the page's own starts again at page 1.
 */
export function listAddress(path: string, current: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(current);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') next.delete(name);
    else next.set(name, value);
  }
  if (!('page' in changes)) next.delete('page');
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}
