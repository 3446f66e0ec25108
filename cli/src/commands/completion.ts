// `presence completion bash|zsh`: a shell completion script generated from the command tree
// itself, so a new command or option completes without touching this file. Both scripts walk
// the words typed so far down the tree (skipping options and arguments) and offer the
// subcommands of where they stand, or its options after a `-`. Bash's uses only `case` and
// `compgen` (bash 3.2, macOS's, has no associative arrays); zsh's shows each description.
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';

type Node = { path: string; children: { name: string; description: string }[]; options: { flag: string; description: string }[] };

/** Every command with subcommands or options, keyed by its path (`presence memory`). */
function nodes(cmd: Command, path = 'presence'): Node[] {
  const children = cmd.commands.filter((c) => c.name() !== 'help');
  // Commander adds --help at parse time, not to .options.
  const options = cmd.options.flatMap((o) => (o.long ? [{ flag: o.long, description: o.description }] : []));
  options.push({ flag: '--help', description: 'display help for command' });
  return [
    { path, children: children.map((c) => ({ name: c.name(), description: c.description() })), options },
    ...children.flatMap((c) => nodes(c, `${path} ${c.name()}`)),
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
_presence() {
  local cur=\${COMP_WORDS[COMP_CWORD]} node=presence w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    case " $(_presence_children "$node") " in *" $w "*) node="$node $w" ;; esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_presence_options "$node")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_presence_children "$node")" -- "$cur"))
  fi
}
complete -F _presence presence
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
    (( \${kids[(Ie)$w]} )) && node="$node $w"
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
compdef _presence presence
`;
}

const shells = { bash: bashCompletion, zsh: zshCompletion } as const;

export function registerCompletion(program: Command, cli: CliContext) {
  program
    .command('completion')
    .description('print a shell completion script: source <(presence completion bash)')
    .argument('<shell>', 'bash or zsh', (value: string) => {
      if (!(value in shells)) throw new InvalidArgumentError('bash or zsh');
      return value as keyof typeof shells;
    })
    .action((shell: keyof typeof shells) => {
      cli.io.stdout(shells[shell](program));
    });
}
