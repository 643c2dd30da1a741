import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { CallDecisionCell } from './call-decision.tsx';

describe('CallDecisionCell', () => {
  it('shows the outcome, the rule, a link to the approval and what the agent was told', () => {
    const approval = `act_${'b'.repeat(32)}`;
    render(
      <MemoryRouter>
        <CallDecisionCell
          decision={{
            outcome: 'approval_required',
            rule: 'external-mail',
            policy: 'mail',
            approval,
            message: 'It needs a human.',
          }}
        />
      </MemoryRouter>,
    );
    expect(screen.getByText('approval_required')).toBeTruthy();
    expect(screen.getByText(/mail\/external-mail/)).toBeTruthy();
    expect(screen.getByRole('link', { name: approval }).getAttribute('href')).toBe(
      `/approvals/${approval}`,
    );
    expect(screen.getByText(/told the agent: “It needs a human.”/)).toBeTruthy();
  });

  it('shows what observe-mode rules would have decided', () => {
    render(
      <MemoryRouter>
        <CallDecisionCell
          decision={{
            outcome: 'allow',
            observed: { outcome: 'deny', rule: 'pr-only-in-app', policy: 'trial' },
          }}
        />
      </MemoryRouter>,
    );
    expect(screen.getByText('allow')).toBeTruthy();
    expect(screen.getByText(/observe mode would have/)).toBeTruthy();
    expect(screen.getByText('deny')).toBeTruthy();
    expect(screen.getByText(/trial\/pr-only-in-app/)).toBeTruthy();
  });

  it('shows a dash when no call-time rule covered the call', () => {
    render(<CallDecisionCell decision={undefined} />);
    expect(screen.getByText('—')).toBeTruthy();
  });
});
