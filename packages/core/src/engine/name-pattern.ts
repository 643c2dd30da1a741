/** A compiled {@link NamePattern}: exact names compare as strings, the rest as a RegExp. */
export type NameMatcher = (name: string) => boolean;

const REGEX_FORM = /^\/(.+)\/([a-z]*)$/s;
const GLOB_CHARS = /[*?[]/;

/**
 * Compiles `/regex/flags`, a glob (`*`, `?`, `[abc]`) or an exact name. Globs match the whole
 * name and `*` crosses `/`, so `github/*` matches every tool of the `github` MCP server.
 * `ignoreCase` is for names the model wrote itself (a meta-tool's target, a hosted call): a
 * bridge may resolve `Delete_Repo` to `delete_repo`, so a rule hiding one must catch the other.
 */
export function compileNamePattern(
  pattern: string,
  options: { ignoreCase?: boolean } = {},
): NameMatcher {
  const ignoreCase = options.ignoreCase === true;
  const regex = REGEX_FORM.exec(pattern);
  if (regex) {
    let flags = (regex[2] ?? '').replace(/g|y/g, '');
    if (ignoreCase && !flags.includes('i')) flags += 'i';
    const re = new RegExp(regex[1] ?? '', flags);
    return (name) => re.test(name);
  }
  if (GLOB_CHARS.test(pattern)) {
    const re = globToRegExp(pattern, ignoreCase);
    return (name) => re.test(name);
  }
  if (ignoreCase) {
    const folded = pattern.toLowerCase();
    return (name) => name.toLowerCase() === folded;
  }
  return (name) => name === pattern;
}

function globToRegExp(glob: string, ignoreCase: boolean): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        let body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body}]`;
        i = close;
      }
    } else source += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, ignoreCase ? 'si' : 's');
}
