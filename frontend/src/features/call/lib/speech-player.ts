/**
 * Plays the character's answer as its `callSpeech` parts arrive: one audio element, the parts
 * of an answer in index order, each starting when the one before ends; parts that arrive while
 * one plays wait their turn. She is "speaking" from her first part until the part marked
 * `last` has played, including a pause while the next sentence is still being made (so the
 * screen does not flicker back to listening between sentences, and talking over the pause is
 * a barge-in too). `interrupt()` (barge-in, the end of the call) stops the sound at once and
 * drops what waits; the parts of that answer still on the wire are ignored when they come.
 */
import type { VoicePart } from '@/lib/api-types';

export interface QueuedPart {
  replyId: string;
  part: VoicePart;
}

export interface SpeechPlayerEvents {
  /** She started (true) or finished or was stopped (false). */
  onSpeaking?: (speaking: boolean) => void;
  /** A part played to its end. */
  onPartPlayed?: (played: QueuedPart) => void;
  /** A part could not be played (it is skipped). */
  onPartFailed?: (failed: QueuedPart) => void;
}

/** How long a pause between parts may last before the answer counts as over (a lost part). */
export const PART_GAP_LIMIT_MS = 15_000;

export class SpeechPlayer {
  private readonly audio: HTMLAudioElement;
  private readonly events: SpeechPlayerEvents;
  private waiting: QueuedPart[] = [];
  private playing: QueuedPart | null = null;
  /** From her first part until her last has played. */
  private answering = false;
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** The answer of the part playing or played last, while she is answering. */
  private lastReplyId: string | null = null;
  /** `replyId:index` of every part played, so that a repeat is not played again. */
  private readonly played = new Set<string>();
  /** Answers cut off by the user: their late parts are dropped. */
  private readonly silenced = new Set<string>();

  constructor(audio: HTMLAudioElement, events: SpeechPlayerEvents = {}) {
    this.audio = audio;
    this.events = events;
    audio.onended = () => this.finished(true);
    audio.onerror = () => this.finished(false);
  }

  get speaking(): boolean {
    return this.answering;
  }

  /** The answer being spoken (or paused between parts), if any. */
  get replyId(): string | null {
    return this.playing?.replyId ?? this.lastReplyId;
  }

  enqueue(replyId: string, part: VoicePart): void {
    if (this.silenced.has(replyId)) return;
    // A part seen before: the server repeats the last one with `last: true` when the reply
    // ended with nothing more to say (docs/api.md "Voice calls"); only that mark is news.
    const known = (q: QueuedPart) => q.replyId === replyId && q.part.index === part.index;
    const held = [this.playing, ...this.waiting].find((q): q is QueuedPart => q !== null && known(q));
    if (held) {
      if (part.last) held.part = { ...held.part, last: true };
      return;
    }
    if (this.played.has(`${replyId}:${part.index}`)) {
      if (part.last && !this.playing && this.waiting.length === 0) this.stopAnswering();
      return;
    }
    this.waiting.push({ replyId, part });
    // Answers in the order they came; within one, by index.
    const order = new Map<string, number>();
    for (const queued of this.waiting) if (!order.has(queued.replyId)) order.set(queued.replyId, order.size);
    this.waiting.sort((a, b) => order.get(a.replyId)! - order.get(b.replyId)! || a.part.index - b.part.index);
    if (!this.playing) this.next();
  }

  /** Stops the sound now and drops every waiting part; the answers they belong to stay silent. */
  interrupt(): void {
    for (const queued of [this.playing, ...this.waiting]) if (queued) this.silenced.add(queued.replyId);
    if (this.lastReplyId) this.silenced.add(this.lastReplyId);
    this.waiting = [];
    this.playing = null;
    this.audio.pause();
    this.audio.removeAttribute('src');
    this.stopAnswering();
  }

  /** The answer will not go on (its turn failed): a pause waiting for more parts ends. */
  release(): void {
    if (!this.playing && this.waiting.length === 0) this.stopAnswering();
  }

  private stopAnswering(): void {
    if (this.gapTimer !== null) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    this.lastReplyId = null;
    if (!this.answering) return;
    this.answering = false;
    this.events.onSpeaking?.(false);
  }

  private next(): void {
    if (this.gapTimer !== null) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    const upcoming = this.waiting.shift();
    if (!upcoming) return;
    this.playing = upcoming;
    this.lastReplyId = upcoming.replyId;
    this.audio.src = upcoming.part.url;
    if (!this.answering) {
      this.answering = true;
      this.events.onSpeaking?.(true);
    }
    const failed = (error: unknown) => {
      // A newer source (the next part, or an interrupt) replaced this one: not a failure.
      if (error instanceof DOMException && error.name === 'AbortError') return;
      if (this.playing === upcoming) this.finished(false);
    };
    try {
      // Older engines answer play() with nothing instead of a promise.
      void Promise.resolve(this.audio.play()).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  private finished(ok: boolean): void {
    const done = this.playing;
    if (!done) return;
    this.playing = null;
    this.played.add(`${done.replyId}:${done.part.index}`);
    if (ok) this.events.onPartPlayed?.(done);
    else this.events.onPartFailed?.(done);
    if (this.waiting.length > 0) return this.next();
    if (done.part.last) return this.stopAnswering();
    // More of this answer is coming: wait for it, but not forever.
    this.gapTimer = setTimeout(() => this.stopAnswering(), PART_GAP_LIMIT_MS);
  }
}
