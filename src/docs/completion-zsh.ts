import { GENERATED_NOTE, optionWords, positionalCompletions, type CompletionModel } from './completion-model.js';
import type { OptionRef } from './reference.js';

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
const pattern = (cmd: string, flag: string): string => (cmd === '*' ? `*"|${flag}"` : `"${cmd}|${flag}"`);
/** A `_describe` item: `name:description`, with colons in the name escaped. */
const item = (name: string, describe: string): string =>
  quote(`${name.replaceAll(':', '\\:')}:${describe.replace(/\s+/g, ' ')}`);

function optionItems(options: OptionRef[]): string[] {
  return options.flatMap((o) => {
    const flags = optionWords([o]);
    return flags.map((f) => item(f, f === `--no-${o.name}` ? `turn off: ${o.describe}` : o.describe));
  });
}

function valueAction(o: OptionRef): string {
  switch (o.complete) {
    case 'choices':
      return `compadd -- ${o.choices.join(' ')}`;
    case 'file':
      return '_files';
    case 'dir':
      return '_files -/';
    case 'session':
      return '_nsed_session_ids';
    case 'policy':
      return '_nsed_policy_tags';
    case 'none':
      return `_message ${quote(o.valueName.toLowerCase())}`;
  }
}

export function zshCompletion(m: CompletionModel): string {
  const values = [
    ...m.commands.flatMap((c) => c.options.filter((o) => o.takesValue).map((option) => ({ keys: c.keys, option }))),
    ...m.globals.filter((o) => o.takesValue).map((option) => ({ keys: ['*'], option })),
  ];
  const patterns = (keys: string[], o: OptionRef): string =>
    keys.flatMap((k) => o.flags.map((f) => pattern(k, f))).join('|');
  const out: string[] = [
    '#compdef nsed',
    '# zsh completion for nsed',
    `# ${GENERATED_NOTE}`,
    '# Install: nsed completion zsh > "${fpath[1]}/_nsed" and start a new shell,',
    '# or source <(nsed completion zsh) after compinit.',
    '',
    '# Runs an nsed listing against the store the command line names (--home); never the network.',
    '_nsed_store_list() {',
    '  local i',
    '  local -a home',
    '  for (( i = 2; i < CURRENT; i++ )); do',
    '    case ${words[i]} in',
    '      (--home) home=(--home ${words[i+1]}) ;;',
    '      (--home=*) home=(--home ${words[i]#--home=}) ;;',
    '    esac',
    '  done',
    '  nsed $home "$@" 2>/dev/null',
    '}',
    '',
    '_nsed_session_ids() {',
    '  local -a ids',
    '  ids=(${(f)"$(_nsed_store_list sessions ls --ids)"})',
    "  _describe -t sessions 'session id' ids",
    '}',
    '',
    '# Policy tags from the cache the last `nsed policies` wrote (no request to the orchestrator).',
    '_nsed_policy_tags() {',
    '  local -a tags',
    // A tag may hold a colon (`mid:0v1`), which _describe would take for the end of the name.
    '  tags=(${${(f)"$(_nsed_store_list policies --cached)"}//:/\\\\:})',
    "  _describe -t policies 'policy tag' tags",
    '}',
    '',
    '_nsed_takes_value() {',
    '  case "$1|$2" in',
    `    (${values.map((v) => patterns(v.keys, v.option)).join('|')}) return 0 ;;`,
    '  esac',
    '  return 1',
    '}',
    '',
    '_nsed_value() {',
    '  case "$1|$2" in',
    ...values.map((v) => `    (${patterns(v.keys, v.option)}) ${valueAction(v.option)} ;;`),
    '  esac',
    '}',
    '',
    '_nsed() {',
    "  local cmd='' npos=0 skip=0 i w",
    '  local cur=${words[CURRENT]} prev=${words[CURRENT-1]}',
    '  local -a items',
    '  for (( i = 2; i < CURRENT; i++ )); do',
    '    w=${words[i]}',
    '    if (( skip )); then skip=0; continue; fi',
    '    case $w in',
    '      (-*) _nsed_takes_value "$cmd" "$w" && skip=1 ;;',
    '      (*)',
    '        if [[ -z $cmd ]]; then cmd=$w',
    ...m.groups.map((g) => `        elif [[ $cmd == ${g.name} ]]; then cmd="${g.name} $w"`),
    '        else npos=$((npos + 1)); fi ;;',
    '    esac',
    '  done',
    '  if (( skip )); then',
    '    _nsed_value "$cmd" "$prev"',
    '    return',
    '  fi',
    '  if [[ $cur == -* ]]; then',
    '    case $cmd in',
    ...m.commands.map(
      (c) =>
        `      (${c.keys.map((k) => `"${k}"`).join('|')}) items=(${optionItems([...c.options, ...m.globals]).join(' ')}) ;;`,
    ),
    `      (*) items=(${optionItems(m.globals).join(' ')}) ;;`,
    '    esac',
    '    _describe -t options option items',
    '    return',
    '  fi',
    '  case $cmd in',
    `    ('') items=(${m.top.map((t) => item(t.name, t.describe)).join(' ')}); _describe -t commands command items ;;`,
    ...m.groups.map(
      (g) =>
        `    (${g.name}) items=(${g.subcommands.map((s) => item(s.name, s.describe)).join(' ')}); _describe -t commands ${quote(`${g.name} command`)} items ;;`,
    ),
    ...positionalCases(m),
    '  esac',
    '}',
    '',
    'if [ "$funcstack[1]" = "_nsed" ]; then',
    '  _nsed "$@"',
    'else',
    '  compdef _nsed nsed',
    'fi',
  ];
  return `${out.join('\n')}\n`;
}

function positionalCases(m: CompletionModel): string[] {
  return positionalCompletions(m).map((p) =>
    p.kind === 'choices'
      ? `    (${p.keys}) (( npos == ${p.index} )) && compadd -- ${p.choices.join(' ')} ;;`
      : `    (${p.keys}) (( npos ${p.variadic ? '>=' : '=='} ${p.index} )) && _nsed_session_ids ;;`,
  );
}
