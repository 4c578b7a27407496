import { Link } from 'react-router';
import { paths } from '../config/paths';
import PageTitle from './page-title';

/** Any unknown path (docs/product-rules.md, Screens). */
export default function NotFoundScreen() {
  return (
    <div className="text-center py-5">
      <PageTitle title="Page not found" />
      <h1 className="display-6">404 Page Not Found</h1>
      <p className="lead">This page does not exist</p>
      <Link to={paths.home} className="btn btn-dark">
        Go Back
      </Link>
    </div>
  );
}
