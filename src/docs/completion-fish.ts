import { GENERATED_NOTE, sessionPositional, type CompletionModel } from './completion-model.js';
import type { OptionRef } from './reference.js';

const quote = (text: string): string =>
  `'${text.replace(/\s+/g, ' ').replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** `complete` arguments declaring one option: its spellings, whether it takes a value and what completes it. */
function optionSpec(o: OptionRef): string[] {
  const parts: string[] = [];
  for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
  if (o.takesValue) {
    switch (o.complete) {
      case 'choices':
        parts.push('-x', `-a ${quote(o.choices.join(' '))}`);
        break;
      case 'file':
        parts.push('-r', '-F');
        break;
      case 'dir':
        parts.push('-x', `-a '(__fish_complete_directories)'`);
        break;
      case 'session':
        parts.push('-x', `-a '(__nsed_session_ids)'`);
        break;
      case 'policy':
        parts.push('-x', `-a '(__nsed_policy_tags)'`);
        break;
      case 'none':
        parts.push('-x');
        break;
    }
  }
  parts.push(`-d ${quote(o.describe)}`);
  const lines = [parts.join(' ')];
  if (o.negatable) lines.push(`-l no-${o.name} -d ${quote(`turn off: ${o.describe}`)}`);
  return lines;
}

export function fishCompletion(m: CompletionModel): string {
  const when = (keys: string[]): string => `-n ${quote(`__nsed_is ${keys.map((k) => `'${k}'`).join(' ')}`)}`;
  const out: string[] = [
    '# fish completion for nsed',
    `# ${GENERATED_NOTE}`,
    '# Install: nsed completion fish > ~/.config/fish/completions/nsed.fish',
    '',
    '# Prints the command the line names so far (`sessions ls`), then how many arguments follow it.',
    'function __nsed_words',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    "    set -l cmd ''",
    '    set -l npos 0',
    '    set -l skip 0',
    '    for w in $tokens',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $w',
    "            case '-*'",
    '                if __nsed_takes_value "$cmd" $w',
    '                    set skip 1',
    '                end',
    "            case '*'",
    '                if test -z "$cmd"',
    '                    set cmd $w',
    ...m.groups.flatMap((g) => [
      `                else if test "$cmd" = ${g.name}`,
      `                    set cmd "${g.name} $w"`,
    ]),
    '                else',
    '                    set npos (math $npos + 1)',
    '                end',
    '        end',
    '    end',
    '    echo $cmd',
    '    echo $npos',
    'end',
    '',
    'function __nsed_takes_value --argument-names cmd flag',
    '    switch "$cmd|$flag"',
    `        case ${[
      ...m.commands.flatMap((c) =>
        c.options
          .filter((o) => o.takesValue)
          .flatMap((o) => c.keys.flatMap((k) => o.flags.map((f) => quote(`${k}|${f}`)))),
      ),
      ...m.globals.filter((o) => o.takesValue).flatMap((o) => o.flags.map((f) => quote(`*|${f}`))),
    ].join(' ')}`,
    '            return 0',
    '    end',
    '    return 1',
    'end',
    '',
    '# True when the command so far is one of the arguments.',
    'function __nsed_is',
    '    set -l words (__nsed_words)',
    '    contains -- "$words[1]" $argv',
    'end',
    '',
    '# True when the command is $argv[1] and $argv[2] arguments precede the cursor (">=N": at least N).',
    'function __nsed_at --argument-names cmd n',
    '    set -l words (__nsed_words)',
    '    test "$words[1]" = "$cmd"; or return 1',
    "    if string match -q '>=*' -- $n",
    '        test $words[2] -ge (string sub -s 3 -- $n)',
    '    else',
    '        test $words[2] -eq $n',
    '    end',
    'end',
    '',
    '# Runs an nsed listing against the store the command line names (--home); never the network.',
    'function __nsed_store_list',
    '    set -l tokens (commandline -opc)',
    '    set -l home',
    '    for i in (seq (count $tokens))',
    '        switch $tokens[$i]',
    '            case --home',
    '                if test $i -lt (count $tokens)',
    '                    set home --home $tokens[(math $i + 1)]',
    '                end',
    "            case '--home=*'",
    "                set home --home (string replace -- --home= '' $tokens[$i])",
    '        end',
    '    end',
    '    nsed $home $argv 2>/dev/null',
    'end',
    '',
    'function __nsed_session_ids',
    '    __nsed_store_list sessions ls --ids',
    'end',
    '',
    '# Policy tags from the cache the last `nsed policies` wrote (no request to the orchestrator).',
    'function __nsed_policy_tags',
    '    __nsed_store_list policies --cached',
    'end',
    '',
    'complete -c nsed -f',
    ...m.globals.flatMap(optionSpec).map((spec) => `complete -c nsed ${spec}`),
    ...m.top.map((t) => `complete -c nsed ${when([''])} -a ${t.name} -d ${quote(t.describe)}`),
    ...m.groups.flatMap((g) =>
      g.subcommands.map((s) => `complete -c nsed ${when([g.name])} -a ${s.name} -d ${quote(s.describe)}`),
    ),
    ...m.commands.flatMap((c) =>
      c.options.flatMap(optionSpec).map((spec) => `complete -c nsed ${when(c.keys)} ${spec}`),
    ),
    ...m.commands.flatMap((c) => positional(c.keys, c)),
  ];
  return `${out.join('\n')}\n`;
}

function positional(keys: string[], c: CompletionModel['commands'][number]): string[] {
  const ids = sessionPositional(c);
  const lines: string[] = [];
  for (const key of keys) {
    if (ids !== undefined) {
      const n = ids.variadic ? `>=${ids.index}` : String(ids.index);
      lines.push(`complete -c nsed -n ${quote(`__nsed_at '${key}' '${n}'`)} -a '(__nsed_session_ids)'`);
      continue;
    }
    const choice = c.positionals.findIndex((p) => p.complete === 'choices');
    const p = c.positionals[choice];
    if (p !== undefined)
      lines.push(`complete -c nsed -n ${quote(`__nsed_at '${key}' ${choice}`)} -a ${quote(p.choices.join(' '))}`);
  }
  return lines;
}
