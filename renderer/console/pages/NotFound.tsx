import { EmptyState } from '../components/States';
import { useTitle } from '../hooks';
import { Link } from '../router';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <div className="page">
      <EmptyState
        icon="search"
        title="This page does not exist"
        action={
          <Link to="/" className="btn btn-primary">
            Go to the overview
          </Link>
        }
      >
        The link may be old, or the item was deleted.
      </EmptyState>
    </div>
  );
}
