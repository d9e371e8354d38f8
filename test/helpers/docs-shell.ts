/**
 * The shell a runnable block of docs/ may use, read the way bash reads it, so that the test can run
 * each `bin/transcript-sync` line in-process (runMain) instead of starting a process per line:
 *
 *   # a comment                          blank lines and comments, also after a command
 *   bin/transcript-sync ARGS [> FILE]    a command, its stdout written to FILE
 *   echo "TEXT" | bin/transcript-sync ARGS [> FILE]
 *                                        TEXT and a newline as its stdin
 *   cat > FILE <<'EOF'                   a file written from the lines up to EOF
 *   ...
 *   EOF
 *
 * Words are bare, '...' (literal) or "..." (with \" \\ \$ \` escapes); a line ending in \ goes on
 * on the next. Anything else (a variable, a command substitution, another program, &&, ;) is
 * refused with the line, so that a block cannot hold what this reading would get wrong.
 */

export const BIN_WORD = 'bin/transcript-sync';

export type ShellStep =
  | { readonly kind: 'write'; readonly file: string; readonly text: string }
  | {
      readonly kind: 'run';
      /** The command line as written (after joining continued lines). */
      readonly line: string;
      /** The program's arguments, without bin/transcript-sync. */
      readonly args: readonly string[];
      readonly stdin: string;
      /** Where stdout goes; undefined: nowhere (shown on failure only). */
      readonly out: string | undefined;
    };

interface Token {
  readonly text: string;
  /** An unquoted `|` or `>`. */
  readonly operator: boolean;
}

const HEREDOC = /^cat > (\S+) <<'(\w+)'$/;

/** The steps of a block, in order; throws on a line outside the language above. */
export function parseShell(block: string): ShellStep[] {
  const lines = block.split('\n');
  const steps: ShellStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? '';
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const heredoc = HEREDOC.exec(line.trim());
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] ?? '', i + 1);
      if (end < 0) throw new Error(`the here-document of "${line}" never ends`);
      steps.push({ kind: 'write', file: heredoc[1] ?? '', text: `${lines.slice(i + 1, end).join('\n')}\n` });
      i = end;
      continue;
    }
    while (line.endsWith('\\') && i + 1 < lines.length) {
      i += 1;
      line = `${line.slice(0, -1)} ${(lines[i] ?? '').trim()}`;
    }
    steps.push(commandStep(line));
  }
  return steps;
}

function commandStep(line: string): ShellStep {
  let tokens = words(line);
  let stdin = '';
  const unsupported = () => new Error(`not a command a runnable block may hold: ${line}`);
  const [first, second, third] = tokens;
  if (
    first?.text === 'echo' &&
    !first.operator &&
    second &&
    !second.operator &&
    third?.operator &&
    third.text === '|'
  ) {
    stdin = `${second.text}\n`;
    tokens = tokens.slice(3);
  }
  if (tokens[0]?.text !== BIN_WORD || tokens[0].operator) throw unsupported();
  let out: string | undefined;
  const redirect = tokens.findIndex((t) => t.operator);
  if (redirect >= 0) {
    const target = tokens[redirect + 1];
    if (tokens[redirect]?.text !== '>' || !target || target.operator || redirect + 2 !== tokens.length)
      throw unsupported();
    out = target.text;
    tokens = tokens.slice(0, redirect);
  }
  return { kind: 'run', line, args: tokens.slice(1).map((t) => t.text), stdin, out };
}

/** The words of a line as bash splits them, for the quoting above; operators `|` and `>` apart. */
function words(line: string): Token[] {
  const tokens: Token[] = [];
  let current: string | undefined;
  const refuse = (what: string) => new Error(`${what} is not supported in a runnable block: ${line}`);
  const end = () => {
    if (current !== undefined) tokens.push({ text: current, operator: false });
    current = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (/\s/.test(c)) {
      end();
    } else if (c === '#' && current === undefined) {
      break;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw refuse('an unclosed quote');
      current = (current ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let text = '';
      for (i += 1; i < line.length && line[i] !== '"'; i++) {
        const d = line[i] ?? '';
        if (d === '$' || d === '`') throw refuse(`${d} inside "..."`);
        if (d === '\\' && /["\\$`]/.test(line[i + 1] ?? '')) {
          i += 1;
          text += line[i];
        } else text += d;
      }
      if (i >= line.length) throw refuse('an unclosed quote');
      current = (current ?? '') + text;
    } else if (c === '|' || c === '>') {
      end();
      tokens.push({ text: c, operator: true });
    } else if (/[<&;$`(){}*?[\]~]/.test(c)) {
      throw refuse(`"${c}"`);
    } else if (c === '\\') {
      i += 1;
      current = (current ?? '') + (line[i] ?? '');
    } else {
      current = (current ?? '') + c;
    }
  }
  end();
  return tokens;
}
