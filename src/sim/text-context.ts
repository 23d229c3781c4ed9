/** What the simulated agents know about a question: its key terms, a topic phrase and a title. */
export interface TextContext {
  /** The question being answered now (the last user turn). */
  question: string;
  title: string;
  topic: string;
  t1: string;
  t2: string;
  t3: string;
  /** The first earlier user question of a multi-turn thread, shortened; '' on a first turn. */
  earlier: string;
}

const STOP = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers him his how i if in
  into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she should
  so some such than that the their them then there these they this those through to too under until up very was we were what
  when where which while who whom why will with would you your yours yo hey hi hello please thanks thank okay ok yes
  design build create make write explain describe implement compare choose pick need want best good way use using get tell
  give show help think know like summarise summarize summary recap let lets go vs versus something anything thing things really much many`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#_-]*/gu;

/** Words of the text in order, each with whether it is a content word. */
function words(text: string): Array<{ word: string; content: boolean; gapBefore: boolean }> {
  const out: Array<{ word: string; content: boolean; gapBefore: boolean }> = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    const between = text.slice(last, m.index);
    last = m.index + word.length;
    const lower = word.toLowerCase();
    out.push({
      word,
      content: !STOP.has(lower) && (lower.length > 2 || /\d/.test(lower)),
      gapBefore: /[^\s]/.test(between),
    });
  }
  return out;
}

/** Noun-phrase stand-ins: runs of adjacent content words, at most three words each, in order. */
export function phrasesOf(text: string): string[] {
  const runs: string[][] = [];
  let run: string[] | undefined;
  words(text).forEach((w, i) => {
    // A capital on the first word is only sentence case; elsewhere it marks a name (Node, SQLite).
    const shown = i === 0 && !/^[A-Z0-9]{2,}$/.test(w.word) ? w.word.toLowerCase() : w.word;
    if (!w.content) {
      run = undefined;
      return;
    }
    if (run === undefined || w.gapBefore || run.length === 3) {
      run = [];
      runs.push(run);
    }
    run.push(shown);
  });
  const seen = new Set<string>();
  return runs
    .map((r) => r.join(' '))
    .filter((p) => {
      const key = p.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** The main phrase: the longest, and of equals the last (questions name their object late). */
export function topicOf(text: string): string {
  let best = '';
  for (const p of phrasesOf(text)) if (best === '' || p.split(' ').length >= best.split(' ').length) best = p;
  return best === '' ? 'this question' : best;
}

/** Shortens at a word boundary, adding an ellipsis when it cut. */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, '')}…`;
}

export function titleOf(question: string): string {
  const firstLine = question.split('\n').find((l) => l.trim() !== '') ?? '';
  const short = shorten(firstLine, 60);
  if (short === '') return 'Answer';
  return short.charAt(0).toUpperCase() + short.slice(1);
}

export function textContext(question: string, earlierQuestion: string): TextContext {
  const topic = topicOf(question);
  const others = [...phrasesOf(question).filter((p) => p !== topic), 'the stored state', 'the failure path'];
  return {
    question,
    title: titleOf(question),
    topic,
    t1: topic === 'this question' ? 'the main component' : topic,
    t2: others[0] ?? 'the stored state',
    t3: others[1] ?? 'the failure path',
    earlier: earlierQuestion === '' ? '' : shorten(earlierQuestion, 80),
  };
}

/** Replaces `{topic}`, `{t1}`, `{t2}`, `{t3}` and any extra `{name}` given. */
export function fill(template: string, ctx: TextContext, extra: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (name in extra) return extra[name] ?? whole;
    if (name === 'topic' || name === 't1' || name === 't2' || name === 't3') return ctx[name];
    return whole;
  });
}
