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
