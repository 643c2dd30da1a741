import { describe, expect, it } from 'vitest';
import { describeChanges } from './describe-changes.ts';

const hide = { id: 'hide-destructive', action: 'hide', match: { name: 'delete_*' } };
const merge = { id: 'no-merge', action: 'hide', match: { name: 'merge' } };

describe('describeChanges: a change list in words, not JSON pointers', () => {
  it.each([
    [{ rules: [merge] }, { rules: [merge, hide] }, ['rule hide-destructive added']],
    [{ rules: [merge, hide] }, { rules: [merge] }, ['rule hide-destructive removed']],
    [
      { rules: [merge] },
      { rules: [{ ...merge, action: 'deny', message: 'No merges.' }] },
      [
        'rule no-merge: action changed from hide to deny',
        'rule no-merge: message to the agent added',
      ],
    ],
    [
      { rules: [merge] },
      { rules: [{ ...merge, match: { name: 'merge_pr' }, enabled: false }] },
      ['rule no-merge disabled', 'rule no-merge: tool name changed from merge to merge_pr'],
    ],
    [
      { rules: [merge], when: undefined },
      { rules: [{ ...merge, when: 'identity.human == "bob"' }] },
      ['rule no-merge: condition (when) added'],
    ],
    [
      { mode: 'patch', priority: 0, selector: {}, rules: [] },
      { mode: 'observe', priority: 5, selector: { matchLabels: { env: 'prod' } }, rules: [] },
      [
        'gateway selector changed from every gateway to env=prod',
        'mode changed from patch to observe',
        'priority changed from 0 to 5',
      ],
    ],
    [
      { rules: [merge, hide] },
      { rules: [hide, merge] },
      ['rules reordered: hide-destructive, no-merge'],
    ],
    [
      { rules: [merge] },
      { rules: [merge], headerClaims: 'trusted' },
      ['header claims set to trusted'],
    ],
    [{ rules: [merge] }, { rules: [merge] }, []],
    // Defaults left out are no change.
    [{ rules: [merge], mode: 'patch', priority: 0, selector: {} }, { rules: [merge] }, []],
  ])('%j → %j', (from, to, expected) => {
    expect(describeChanges(from, to)).toEqual(expected);
  });
});
