import { phrasesOf, shorten, topicOf } from './text-context.js';

/** An arithmetic expression in the question (`2+2`, `12 * 7`), which a calculator tool is asked. */
export const ARITHMETIC = /\d+(?:\.\d+)?(?:\s*[-+*/]\s*\d+(?:\.\d+)?)+/;
const NUMBER = /-?\d+(?:\.\d+)?/g;
const URL_LIKE = /\bhttps?:\/\/[^\s"'<>)]+/g;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const PATH_LIKE = /(?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-]+\.[A-Za-z0-9]{1,8}\b/g;
// Curly quotes are written as escapes in the patterns here: a bundle that is all ASCII is read as
// a one-byte string, half the memory and no decoding (test/e2e/startup-cost.test.ts).
const QUOTED = /"([^"\n]{1,200})"|\u201c([^\u201d\n]{1,200})\u201d|`([^`\n]{1,200})`/g;
/** A capitalised word that does not open a sentence: a name (Paris, Postgres). */
const NAME = /(?<![.!?]\s|^)\b[A-Z][\p{L}-]+/gu;

/** What a field's name says it holds; each kind draws its value from a different part of the question. */
type Kind = 'expression' | 'place' | 'text' | 'command' | 'path' | 'url' | 'email' | 'id' | 'language' | 'label';

const KINDS: Array<[RegExp, Kind]> = [
  [/^(?:expr|expression|formula|equation|calculation|math)$/i, 'expression'],
  [/(?:city|location|place|country|town|region|destination|where)/i, 'place'],
  [/^(?:q|query|question|prompt|search|text|input|message|content|body|request|instructions?)$/i, 'text'],
  [/^(?:command|cmd|shell|script)$/i, 'command'],
  [/(?:path|file|filename|dir|directory|folder|cwd|workdir)$/i, 'path'],
  [/(?:url|uri|link|href|endpoint)$/i, 'url'],
  [/(?:email|mail)$/i, 'email'],
  [/(?:^id$|_id$|Id$|^key$|slug)/, 'id'],
  [/^(?:lang|language|locale)$/i, 'language'],
  [/^(?:name|title|subject|topic|label|summary|description|reason)$/i, 'label'],
];

/**
 * A command the question gives: in backticks, or after `run:`/`execute:` (or `run "…"`) to the
 * end of its line. "run: ls" is `ls`, never `echo run`.
 */
const COMMAND_PATTERNS: readonly RegExp[] = [
  /`([^`\n]{1,200})`/,
  /\b(?:run|execute|exec)\s*:\s*([^\n]{1,200})/i,
  /\b(?:run|execute)\s+(?:the\s+command\s+)?["\u201c]([^"\u201d\n]{1,200})["\u201d]/i,
];

/** Characters that make a command need a shell (pipes, redirections, expansions, quotes). */
const NEEDS_SHELL = /[|&;<>()$`\\"'*?[\]{}~!#]/;

/** Words that join a field name's parts but say nothing (`with_escalated_permissions`, `timeout_ms`). */
const FILLER_WORDS = new Set(['with', 'is', 'use', 'to', 'of', 'the', 'a', 'an', 'ms', 'in', 'for', 'by']);

/** A field name as the words a question would use for it: `timeout_ms` -> "timeout". */
const wordsOf = (field: string): string =>
  field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '' && !FILLER_WORDS.has(w))
    .join(' ');

const kindOf = (field: string): Kind | undefined => KINDS.find(([re]) => re.test(field))?.[1];

const all = (re: RegExp, text: string): string[] => [...text.matchAll(re)].map((m) => m[0]);

/**
 * The values a question offers to the fields of a generated JSON value: its names, numbers,
 * paths, links and phrases. A field's name picks which of them fits (`city` takes a name,
 * `expr` the arithmetic, `query` the question), so tool arguments read like a model's.
 */
export class QuestionHints {
  readonly question: string;
  /** The question in lower case, made once: a schema of many fields asks namesField of each. */
  readonly lower: string;
  readonly topic: string;
  readonly phrases: string[];
  readonly numbers: number[];
  private readonly expression: string | undefined;
  private readonly names: string[];
  private readonly paths: string[];
  private readonly urls: string[];
  private readonly emails: string[];
  /** The command the question gives to run, if it gives one. */
  readonly command: string | undefined;

  constructor(question: string) {
    this.question = question;
    this.lower = question.toLowerCase();
    this.topic = topicOf(question);
    this.phrases = phrasesOf(question);
    this.expression = ARITHMETIC.exec(question)?.[0];
    this.numbers = all(NUMBER, question).map(Number);
    const quoted = [...question.matchAll(QUOTED)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
    this.names = [...quoted, ...all(NAME, question)].filter((n) => n !== '');
    this.urls = all(URL_LIKE, question);
    this.emails = all(EMAIL, question);
    this.paths = all(PATH_LIKE, question).filter((p) => !this.urls.some((u) => u.includes(p)) && !/^\d/.test(p));
    this.command = COMMAND_PATTERNS.map((re) => re.exec(question)?.[1]?.trim()).find(
      (c) => c !== undefined && c !== '',
    );
  }

  /** Whether the question names the field itself ("with a timeout of 5000", "escalated permissions"). */
  namesField(field: string): boolean {
    const words = wordsOf(field);
    return words.length >= 3 && this.lower.includes(words);
  }

  /** Whether the question itself supplies a value for this field (so an optional field is worth filling). */
  supplies(field: string): boolean {
    switch (kindOf(field)) {
      case 'expression':
        return this.expression !== undefined;
      case 'place':
        return this.names.length > 0;
      case 'text':
        return this.question.trim() !== '';
      case 'path':
        return this.paths.length > 0;
      case 'url':
        return this.urls.length > 0;
      case 'email':
        return this.emails.length > 0;
      case 'command':
        return this.command !== undefined;
      default:
        return false;
    }
  }

  /** A string for the field; `variant` walks through the candidates (array items, retries). */
  string(field: string, variant = 0): string {
    const phrase = this.phrases[variant % Math.max(1, this.phrases.length)] ?? this.topic;
    switch (kindOf(field)) {
      case 'expression':
        return this.expression ?? String(this.numbers[0] ?? phrase);
      case 'place':
        return this.names[variant % Math.max(1, this.names.length)] ?? this.topic;
      case 'text':
        return shorten(this.question, 200) || this.topic;
      case 'command':
        return this.command ?? `echo ${shellWord(this.topic)}`;
      case 'path':
        return this.paths[variant] ?? '.';
      case 'url':
        return this.urls[variant] ?? `https://example.com/${slug(phrase)}`;
      case 'email':
        return this.emails[variant] ?? 'someone@example.com';
      case 'id':
        return `${slug(phrase)}${variant === 0 ? '' : `-${variant + 1}`}`;
      case 'language':
        return 'en';
      default:
        return phrase;
    }
  }

  /**
   * A command as an argument vector (a shell tool's `command: string[]`, run execvp-style as
   * codex runs it): the question's command split into words, or handed to `bash -lc` when it
   * needs a shell; `echo` of the topic when the question gives none.
   */
  argv(): string[] {
    const c = this.command;
    if (c === undefined) return ['echo', this.topic];
    return NEEDS_SHELL.test(c) ? ['bash', '-lc', c] : c.split(/\s+/);
  }

  /** Whether the field names a command (an array of strings is then an argument vector). */
  isCommand(field: string): boolean {
    return kindOf(field) === 'command';
  }

  /** Candidates for a string that must match a pattern, most meaningful first. */
  candidates(field: string): string[] {
    const words = this.question.split(/[^\p{L}\p{N}_-]+/u).filter((w) => w !== '');
    return [
      this.string(field),
      ...this.names,
      ...this.phrases,
      ...words,
      ...words.map((w) => w.toLowerCase()),
      ...words.map((w) => w.toUpperCase()),
      ...this.numbers.map(String),
      slug(this.topic),
      'a',
      'abc',
      'A',
      'a1',
      'A1',
      '0',
      '1',
      '',
    ];
  }
}

export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '') || 'item';

/** Quoted for a POSIX shell when it holds anything but plain word characters. */
const shellWord = (text: string): string => (/^[\w.,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
