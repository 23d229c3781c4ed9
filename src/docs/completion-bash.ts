import { GENERATED_NOTE, optionWords, positionalCompletions, type CompletionModel } from './completion-model.js';
import type { OptionRef } from './reference.js';

/** A case pattern matching `<command>|<flag>`; `*` stands for any command (a global option). */
const pattern = (cmd: string, flag: string): string => (cmd === '*' ? `*"|${flag}"` : `"${cmd}|${flag}"`);
const words = (list: readonly string[]): string => list.join(' ');

/** Pairs of (command key or `*`, option) covering every option that takes a value. */
function valueOptions(m: CompletionModel): Array<{ keys: string[]; option: OptionRef }> {
  const specific = m.commands.flatMap((c) =>
    c.options.filter((o) => o.takesValue).map((option) => ({ keys: c.keys, option })),
  );
  return [...specific, ...m.globals.filter((o) => o.takesValue).map((option) => ({ keys: ['*'], option }))];
}

function valueAction(o: OptionRef): string {
  switch (o.complete) {
    case 'choices':
      return `COMPREPLY=($(compgen -W "${words(o.choices)}" -- "$cur"))`;
    case 'file':
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))';
    case 'dir':
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))';
    case 'session':
      return 'COMPREPLY=($(compgen -W "$(_nsed_session_ids)" -- "$cur"))';
    case 'policy':
      return 'COMPREPLY=($(compgen -W "$(_nsed_policy_tags)" -- "$cur"))';
    case 'none':
      return 'COMPREPLY=()';
  }
}

export function bashCompletion(m: CompletionModel): string {
  const values = valueOptions(m);
  const takesValue = values.flatMap((v) => v.keys.flatMap((k) => v.option.flags.map((f) => pattern(k, f))));
  const out: string[] = [
    '# bash completion for nsed',
    `# ${GENERATED_NOTE}`,
    '# Install: source <(nsed completion bash), or save it as',
    '# ~/.local/share/bash-completion/completions/nsed',
    '',
    '# Runs an nsed listing against the store the command line names (--home); never the network.',
    '_nsed_store_list() {',
    '  local i home=()',
    '  for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do',
    '    case "${COMP_WORDS[i]}" in',
    '      --home) home=(--home "${COMP_WORDS[i + 1]}") ;;',
    '      --home=*) home=(--home "${COMP_WORDS[i]#--home=}") ;;',
    '    esac',
    '  done',
    '  nsed "${home[@]}" "$@" 2>/dev/null',
    '}',
    '',
    '# Session ids, newest first.',
    '_nsed_session_ids() { _nsed_store_list sessions ls --ids; }',
    '',
    '# Policy tags from the cache the last `nsed policies` wrote (no request to the orchestrator).',
    '_nsed_policy_tags() { _nsed_store_list policies --cached; }',
    '',
    '# Whether option $2 of command $1 takes a value (the next word).',
    '_nsed_takes_value() {',
    '  case "$1|$2" in',
    `    ${takesValue.join('|')}) return 0 ;;`,
    '  esac',
    '  return 1',
    '}',
    '',
    '# Completes the value of option $2 of command $1.',
    '_nsed_value() {',
    '  local cur=$3',
    '  case "$1|$2" in',
    ...values.map(
      (v) =>
        `    ${v.keys.flatMap((k) => v.option.flags.map((f) => pattern(k, f))).join('|')}) ${valueAction(v.option)} ;;`,
    ),
    '  esac',
    '}',
    '',
    '_nsed() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD - 1]}"',
    '  local cmd="" npos=0 skip=0 i w',
    '  COMPREPLY=()',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    w="${COMP_WORDS[i]}"',
    '    if ((skip)); then skip=0; continue; fi',
    '    case "$w" in',
    '      -*) _nsed_takes_value "$cmd" "$w" && skip=1 ;;',
    '      *)',
    '        if [[ -z $cmd ]]; then cmd=$w',
    ...m.groups.map((g) => `        elif [[ $cmd == ${g.name} ]]; then cmd="${g.name} $w"`),
    '        else npos=$((npos + 1)); fi ;;',
    '    esac',
    '  done',
    '  # The loop stopped right after an option that takes a value: the current word is that value.',
    '  if ((skip)); then',
    '    _nsed_value "$cmd" "$prev" "$cur"',
    '    return 0',
    '  fi',
    '  if [[ $cur == -* ]]; then',
    '    case "$cmd" in',
    ...m.commands.map(
      (c) =>
        `      ${c.keys.map((k) => `"${k}"`).join('|')}) COMPREPLY=($(compgen -W "${words(optionWords([...c.options, ...m.globals]))}" -- "$cur")) ;;`,
    ),
    `      *) COMPREPLY=($(compgen -W "${words(optionWords(m.globals))}" -- "$cur")) ;;`,
    '    esac',
    '    return 0',
    '  fi',
    '  case "$cmd" in',
    `    "") COMPREPLY=($(compgen -W "${words(m.top.map((t) => t.name))}" -- "$cur")) ;;`,
    ...m.groups.map(
      (g) => `    ${g.name}) COMPREPLY=($(compgen -W "${words(g.subcommands.map((s) => s.name))}" -- "$cur")) ;;`,
    ),
    ...positionalCases(m),
    '  esac',
    '  return 0',
    '}',
    '',
    'complete -F _nsed nsed',
  ];
  return `${out.join('\n')}\n`;
}

function positionalCases(m: CompletionModel): string[] {
  return positionalCompletions(m).map((p) => {
    if (p.kind === 'choices')
      return `    ${p.keys}) ((npos == ${p.index})) && COMPREPLY=($(compgen -W "${words(p.choices)}" -- "$cur")) ;;`;
    const when = p.variadic ? `npos >= ${p.index}` : `npos == ${p.index}`;
    return `    ${p.keys}) ((${when})) && COMPREPLY=($(compgen -W "$(_nsed_session_ids)" -- "$cur")) ;;`;
  });
}
