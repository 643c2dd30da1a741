import { Link } from 'react-router';
import { useCan } from '../../../shared/auth/session.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty } from '../../../shared/ui/states.tsx';
import { PolicyEditor } from './policy-editor.tsx';
import { UnsavedChangesGuard } from './unsaved-changes-guard.tsx';

export function NewPolicyPage() {
  const canCreate = useCan('mediationPolicies.create');
  return (
    <>
      <PageHeader title="New policy" subtitle={<Link to="/policies">← All policies</Link>} />
      <UnsavedChangesGuard name={undefined} enabled={canCreate} />
      {canCreate ? (
        <PolicyEditor canWrite />
      ) : (
        <Empty title="Read-only">Your role cannot create policies.</Empty>
      )}
    </>
  );
}
