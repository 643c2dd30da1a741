import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patchYaml } from './yaml-patch.ts';

const USER_YAML = `# the repo guard
kind: MediationPolicy
apiVersion: toolgate.dev/v1
metadata:
  name: repo-guard
spec:
  rules:
    - action: hide
      id: hide-deletes # never let agents delete branches
      match: { name: delete_branch }
    - id: no-force-push # keep this one
      action: deny
      match:
        name: force_push
  mode: patch
  priority: 5
`;

describe('patchYaml: the form edits the YAML in place', () => {
  it('changes one value and leaves order, comments and flow style alone', () => {
    const object = parse(USER_YAML);
    object.spec.rules[1].action = 'hide';
    const out = patchYaml(USER_YAML, object);
    expect(out).toBe(USER_YAML.replace('action: deny', 'action: hide'));
  });

  it('matches rules by id: removing the first keeps the second one’s comment with it', () => {
    const object = parse(USER_YAML);
    object.spec.rules.shift();
    const out = patchYaml(USER_YAML, object);
    expect(out).not.toContain('never let agents delete branches');
    expect(out).toContain('- id: no-force-push # keep this one');
    expect(parse(out)).toEqual(object);
  });

  it('appends a new key last and deletes a removed one in place', () => {
    const object = parse(USER_YAML);
    delete object.spec.mode;
    object.spec.unknownIdentities = 'reject';
    const out = patchYaml(USER_YAML, object);
    expect(out.endsWith('  priority: 5\n  unknownIdentities: reject\n')).toBe(true);
    expect(out).not.toContain('mode:');
    expect(Object.keys(parse(out))).toEqual(['kind', 'apiVersion', 'metadata', 'spec']);
  });

  it('a value changing type gets a plain node', () => {
    const text = 'spec:\n  priority: "5"\n';
    expect(patchYaml(text, { spec: { priority: 7 } })).toBe('spec:\n  priority: 7\n');
  });

  it('unparsable text is replaced by the object', () => {
    expect(patchYaml('a: [', { a: 1 })).toBe('a: 1\n');
  });
});
