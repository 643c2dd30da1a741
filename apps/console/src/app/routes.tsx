import { lazy } from 'react';
import { createBrowserRouter, type RouteObject, useRouteError } from 'react-router';
import { SignInPage } from '../features/auth/components/sign-in-page.tsx';
import { ErrorState, NotFound } from '../shared/ui/states.tsx';
import { Layout } from './layout.tsx';

// Every page is its own chunk: the initial bundle is the shell, and the editor and diff
// (CodeMirror) load only on the pages that use them.
const OverviewPage = lazy(() =>
  import('../features/overview/components/overview-page.tsx').then((m) => ({
    default: m.OverviewPage,
  })),
);
const PoliciesPage = lazy(() =>
  import('../features/policies/components/policies-page.tsx').then((m) => ({
    default: m.PoliciesPage,
  })),
);
const NewPolicyPage = lazy(() =>
  import('../features/policies/components/new-policy-page.tsx').then((m) => ({
    default: m.NewPolicyPage,
  })),
);
const PolicyPage = lazy(() =>
  import('../features/policies/components/policy-page.tsx').then((m) => ({
    default: m.PolicyPage,
  })),
);
const ReceiptsPage = lazy(() =>
  import('../features/receipts/components/receipts-page.tsx').then((m) => ({
    default: m.ReceiptsPage,
  })),
);
const ReceiptPage = lazy(() =>
  import('../features/receipts/components/receipt-page.tsx').then((m) => ({
    default: m.ReceiptPage,
  })),
);
const FidelityPage = lazy(() =>
  import('../features/fidelity/components/fidelity-page.tsx').then((m) => ({
    default: m.FidelityPage,
  })),
);
const GatewaysPage = lazy(() =>
  import('../features/gateways/components/gateways-page.tsx').then((m) => ({
    default: m.GatewaysPage,
  })),
);
const GatewayPage = lazy(() =>
  import('../features/gateways/components/gateway-page.tsx').then((m) => ({
    default: m.GatewayPage,
  })),
);
const IdentitiesPage = lazy(() =>
  import('../features/identities/components/identities-page.tsx').then((m) => ({
    default: m.IdentitiesPage,
  })),
);
const ApprovalsPage = lazy(() =>
  import('../features/approvals/components/approvals-page.tsx').then((m) => ({
    default: m.ApprovalsPage,
  })),
);
const ApprovalPage = lazy(() =>
  import('../features/approvals/components/approval-page.tsx').then((m) => ({
    default: m.ApprovalPage,
  })),
);
const McpServersPage = lazy(() =>
  import('../features/mcp-servers/components/mcp-servers-page.tsx').then((m) => ({
    default: m.McpServersPage,
  })),
);
const McpServerPage = lazy(() =>
  import('../features/mcp-servers/components/mcp-server-page.tsx').then((m) => ({
    default: m.McpServerPage,
  })),
);
const HostedToolsPage = lazy(() =>
  import('../features/hosted-tools/components/hosted-tools-page.tsx').then((m) => ({
    default: m.HostedToolsPage,
  })),
);
const HostedToolPage = lazy(() =>
  import('../features/hosted-tools/components/hosted-tool-page.tsx').then((m) => ({
    default: m.HostedToolPage,
  })),
);
const AuditPage = lazy(() =>
  import('../features/audit/components/audit-page.tsx').then((m) => ({ default: m.AuditPage })),
);

function RouteError() {
  return (
    <ErrorState
      title="This page failed to load"
      error={useRouteError()}
      retry={() => window.location.reload()}
    />
  );
}

export const routes: RouteObject[] = [
  { path: '/sign-in', element: <SignInPage /> },
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <OverviewPage /> },
      { path: 'policies', element: <PoliciesPage /> },
      { path: 'policies/new', element: <NewPolicyPage /> },
      { path: 'policies/:name', element: <PolicyPage /> },
      { path: 'receipts', element: <ReceiptsPage /> },
      { path: 'receipts/:id', element: <ReceiptPage /> },
      { path: 'approvals', element: <ApprovalsPage /> },
      { path: 'approvals/:name', element: <ApprovalPage /> },
      { path: 'fidelity', element: <FidelityPage /> },
      { path: 'gateways', element: <GatewaysPage /> },
      { path: 'gateways/:name', element: <GatewayPage /> },
      { path: 'mcp-servers', element: <McpServersPage /> },
      { path: 'mcp-servers/:name', element: <McpServerPage /> },
      { path: 'hosted-tools', element: <HostedToolsPage /> },
      { path: 'hosted-tools/:name', element: <HostedToolPage /> },
      { path: 'identities', element: <IdentitiesPage /> },
      { path: 'audit', element: <AuditPage /> },
      { path: '*', element: <NotFound /> },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
