import { render, screen } from '@testing-library/react';
import { ApiError } from '@toolgate/contract';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Loading, NotFound, QueryView } from './states.tsx';

const notFound = new ApiError(
  {
    kind: 'Status',
    apiVersion: 'v1',
    code: 404,
    reason: 'NotFound',
    message: 'MediationPolicy "does-not-exist" not found',
  } as ApiError['status'],
  404,
);

function at(path: string, ui: React.ReactNode) {
  return render(<MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>);
}

describe('states', () => {
  it('a 404 of a page query is a "Not found" page with the way back to its list', () => {
    at(
      '/policies/does-not-exist',
      <QueryView query={{ isPending: false, error: notFound, data: undefined, refetch: () => {} }}>
        {() => <p>never</p>}
      </QueryView>,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Not found' })).toBeTruthy();
    expect(screen.getByText('MediationPolicy "does-not-exist" not found')).toBeTruthy();
    expect(screen.getByRole('link', { name: '← Back to policies' }).getAttribute('href')).toBe(
      '/policies',
    );
    expect(screen.getByRole('link', { name: 'Go to the Overview' }).getAttribute('href')).toBe('/');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
  });

  it('an unknown top-level address offers the Overview only', () => {
    at('/nowhere', <NotFound />);
    expect(screen.getByText('/nowhere')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Back to/ })).toBeNull();
    expect(screen.getByRole('link', { name: 'Go to the Overview' })).toBeTruthy();
  });

  it('loading is a skeleton announced once, its bars hidden from assistive technology', () => {
    at('/', <Loading label="Loading receipts…" heading rows={3} />);
    const status = screen.getByRole('status');
    expect(status.getAttribute('aria-busy')).toBe('true');
    expect(status.textContent).toBe('Loading receipts…');
    const bars = status.querySelectorAll('.skeleton-bar');
    expect(bars).toHaveLength(4);
    for (const bar of bars) expect(bar.getAttribute('aria-hidden')).toBe('true');
  });
});
