// `presence completion bash|zsh`: a shell completion script generated from the command tree
// itself, so a new command or option completes without touching this file. Both scripts walk
// the words typed so far down the tree (skipping options and arguments; an argument given to
// a command with a default subcommand, `confirm cf_…`, enters that subcommand) and offer the
// subcommands of where they stand, or its options and the program's (`--json`) after a `-`.
// They complete `presence` and `npx presence` alike (the form the README's examples use).
// Bash's uses only `case` and `compgen` (bash 3.2, macOS's, has no associative arrays);
// zsh's shows each description.
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';

type Option = { flag: string; description: string };
type Node = { path: string; children: { name: string; description: string }[]; options: Option[]; fallback: string };

const longOptions = (cmd: Command): Option[] => cmd.options.flatMap((o) => (o.long ? [{ flag: o.long, description: o.description }] : []));

/**
 * Every command, keyed by its path (`presence memory`), with the program's own options
 * (`--json`, `--headers`: Commander takes them after the command too) offered everywhere.
 */
function nodes(cmd: Command, path = 'presence', global: Option[] = longOptions(cmd).filter((o) => o.flag !== '--version')): Node[] {
  const children = cmd.commands.filter((c) => c.name() !== 'help');
  // Commander adds --help at parse time, not to .options.
  const own = [...longOptions(cmd), { flag: '--help', description: 'display help for command' }];
  const options = [...own, ...global.filter((g) => !own.some((o) => o.flag === g.flag))];
  // Commander keeps the default subcommand (`.command(name, { isDefault: true })`) unexposed.
  const fallback = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName ?? '';
  return [
    { path, children: children.map((c) => ({ name: c.name(), description: c.description() })), options, fallback },
    ...children.flatMap((c) => nodes(c, `${path} ${c.name()}`, global)),
  ];
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashCompletion(program: Command): string {
  const tree = nodes(program);
  const cases = (pick: (n: Node) => string[]) => tree.map((n) => `    ${sq(n.path)}) echo ${sq(pick(n).join(' '))} ;;`).join('\n');
  return `# presence completion for bash. Load it with: source <(presence completion bash)
_presence_children() {
  case "$1" in
${cases((n) => n.children.map((c) => c.name))}
  esac
}
_presence_options() {
  case "$1" in
${cases((n) => n.options.map((o) => o.flag))}
  esac
}
_presence_fallback() {
  case "$1" in
${cases((n) => (n.fallback ? [n.fallback] : []))}
  esac
}
# The words after COMP_WORDS[$1] (the word \`presence\`), walked down the command tree.
_presence_from() {
  local cur=\${COMP_WORDS[COMP_CWORD]} node=presence w i d
  for ((i = $1 + 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    case " $(_presence_children "$node") " in
      *" $w "*) node="$node $w" ;;
      *) if [[ $w != -* ]]; then d=$(_presence_fallback "$node"); [[ -n $d ]] && node="$node $d"; fi ;;
    esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_presence_options "$node")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_presence_children "$node")" -- "$cur"))
  fi
}
_presence() { _presence_from 0; }
# \`npx presence …\`, as the README types it; npx's other commands complete file names.
_presence_npx() {
  if [[ $COMP_CWORD -ge 2 && \${COMP_WORDS[1]} == presence ]]; then _presence_from 1; else COMPREPLY=(); compopt -o default 2>/dev/null; fi
}
complete -F _presence presence
complete -F _presence_npx npx
`;
}

export function zshCompletion(program: Command): string {
  const tree = nodes(program);
  // _describe reads "name:description"; a colon in the name itself would need escaping.
  const item = (name: string, description: string) => sq(`${name.replace(/:/g, '\\:')}:${description}`);
  const cases = (pick: (n: Node) => string[]) => tree.map((n) => `    ${sq(n.path)}) items=(${pick(n).join(' ')}) ;;`).join('\n');
  return `#compdef presence
# presence completion for zsh. Load it with: source <(presence completion zsh) (after compinit)
_presence() {
  local node=presence w i
  local -a items kids
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    kids=(\${(f)"$(_presence_children "$node")"})
    if (( \${kids[(Ie)$w]} )); then node="$node $w"
    elif [[ $w != -* ]]; then
      case "$node" in
${tree
  .filter((n) => n.fallback)
  .map((n) => `        ${sq(n.path)}) node="$node ${n.fallback}" ;;`)
  .join('\n')}
      esac
    fi
  done
  if [[ $PREFIX == -* ]]; then
    case "$node" in
${cases((n) => n.options.map((o) => item(o.flag, o.description)))}
    esac
    _describe -t options option items
  else
    case "$node" in
${cases((n) => n.children.map((c) => item(c.name, c.description)))}
    esac
    _describe -t commands command items
  fi
}
_presence_children() {
  case "$1" in
${tree.map((n) => `    ${sq(n.path)}) print -l ${n.children.map((c) => sq(c.name)).join(' ')} ;;`).join('\n')}
  esac
}
# \`npx presence …\`, as the README types it: drop \`npx\` and complete the rest as presence.
_presence_npx() {
  if (( CURRENT > 2 )) && [[ \${words[2]} == presence ]]; then
    shift words; (( CURRENT-- )); _presence
  else
    _default
  fi
}
compdef _presence presence
compdef _presence_npx npx
`;
}

const shells = { bash: bashCompletion, zsh: zshCompletion } as const;

export function registerCompletion(program: Command, cli: CliContext) {
  program
    .command('completion')
    .description('print a shell completion script: source <(presence completion bash)')
    .argument('<shell>', 'bash or zsh', (value: string) => {
      if (!(value in shells)) throw new InvalidArgumentError('expected bash or zsh');
      return value as keyof typeof shells;
    })
    .action((shell: keyof typeof shells) => {
      cli.io.stdout(shells[shell](program));
    });
}
