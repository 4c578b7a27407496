import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';

/** A narrow centred column for forms. */
export default function FormContainer({ children }: { children: React.ReactNode }) {
  return (
    <Row className="justify-content-md-center">
      <Col xs={12} md={8} lg={6}>
        {children}
      </Col>
    </Row>
  );
}
