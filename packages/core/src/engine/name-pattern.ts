/** A compiled {@link NamePattern}: exact names compare as strings, the rest as a RegExp. */
export type NameMatcher = (name: string) => boolean;

const REGEX_FORM = /^\/(.+)\/([a-z]*)$/s;
const GLOB_CHARS = /[*?[]/;

/**
 * Compiles `/regex/flags`, a glob (`*`, `?`, `[abc]`) or an exact name. Globs match the whole
 * name and `*` crosses `/`, so `github/*` matches every tool of the `github` MCP server.
 */
export function compileNamePattern(pattern: string): NameMatcher {
  const regex = REGEX_FORM.exec(pattern);
  if (regex) {
    const re = new RegExp(regex[1] ?? '', (regex[2] ?? '').replace(/g|y/g, ''));
    return (name) => re.test(name);
  }
  if (GLOB_CHARS.test(pattern)) {
    const re = globToRegExp(pattern);
    return (name) => re.test(name);
  }
  return (name) => name === pattern;
}

function globToRegExp(glob: string): RegExp {
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
  return new RegExp(`^${source}$`, 's');
}
