/** Who answered a council call through this server: the person in a host's dialog, or a model's answer_tool_call. */
export type Answerer = 'person' | 'model';

/**
 * The council calls of every session this server answers, across all its connections: which
 * ask_user questions were put to the person (each once), which of those dialogs are still open,
 * and who answered what. So the person's answer is never overwritten by a model that answers
 * the same call, and a second answer is refused with the name of the first one's author.
 */
export class CallAnswers {
  private readonly asked = new Set<string>();
  private readonly open = new Set<string>();
  private readonly answered = new Map<string, Answerer>();

  /** Marks the question asked and its dialog open; false when it was put to the person before. */
  ask(session: string, callId: string): boolean {
    const k = key(session, callId);
    if (this.asked.has(k)) return false;
    this.asked.add(k);
    this.open.add(k);
    return true;
  }

  /** The person's dialog closed (answered, declined or failed). */
  closed(session: string, callId: string): void {
    this.open.delete(key(session, callId));
  }

  /** Whether the person is being asked this call now: it is theirs to answer, not the model's. */
  asking(session: string, callId: string): boolean {
    return this.open.has(key(session, callId));
  }

  /** Who answered the call through this server, if anyone did. */
  by(session: string, callId: string): Answerer | undefined {
    return this.answered.get(key(session, callId));
  }

  /** Claims the call for `who`'s answer before it is sent, so two answers cannot both go. */
  claim(session: string, callId: string, who: Answerer): void {
    this.answered.set(key(session, callId), who);
  }

  /** The answer did not reach the council: the call is open again. */
  release(session: string, callId: string): void {
    this.answered.delete(key(session, callId));
  }
}

const key = (session: string, callId: string): string => `${session}\u0000${callId}`;

/** The author of an answer as an error names them. */
export const ANSWERER_NAMES: Record<Answerer, string> = {
  person: "the person, in the host's question dialog",
  model: 'an earlier answer_tool_call',
};
