import { Link } from 'react-router';
import { useCan } from '../../../shared/auth/session.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty } from '../../../shared/ui/states.tsx';
import { PolicyEditor } from './policy-editor.tsx';

export function NewPolicyPage() {
  const canCreate = useCan('mediationPolicies.create');
  return (
    <>
      <PageHeader title="New policy" subtitle={<Link to="/policies">← All policies</Link>} />
      {canCreate ? (
        <PolicyEditor canWrite />
      ) : (
        <Empty title="Read-only">Your role cannot create policies.</Empty>
      )}
    </>
  );
}
