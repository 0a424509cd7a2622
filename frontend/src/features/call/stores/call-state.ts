/**
 * The call screen's state (issue 32, /work/call-protocol.md), pure: the call hook feeds it
 * the user's presses, the socket's call and chat events and the player's start and stop;
 * tests do the same.
 *
 *   ready ─start→ starting ─callStarted→ listening ⇄ hearing → thinking → speaking → listening …
 *                    └─ no microphone / refused → failed          any ─callEnded→ ended
 */
export type CallPhase =
  /** The cost is shown; nothing runs. */
  | 'ready'
  /** Asking for the microphone, then for the call. */
  | 'starting'
  /** Open, waiting for the user to speak. */
  | 'listening'
  /** The server heard the user start speaking. */
  | 'hearing'
  /** The user's turn was recognised; the answer is being written. */
  | 'thinking'
  /** Her answer is playing. */
  | 'speaking'
  /** `callEnd` sent; waiting for `callEnded`. */
  | 'ending'
  | 'ended'
  /** The call could not start. */
  | 'failed';

export interface TranscriptLine {
  /** `u<n>` for the user's turns, the reply id for hers. */
  id: string;
  speaker: 'user' | 'character';
  text: string;
  /** She was cut off (barge-in, or the reply stopped). */
  interrupted: boolean;
}

export type StartFailure =
  | { kind: 'microphone'; problem: 'denied' | 'unavailable' }
  | { kind: 'offline' }
  | { kind: 'refused'; code: number; msg: string };

export interface CallSummary {
  reason: 'user' | 'coin' | 'idle' | 'error' | 'dropped';
  /** Unknown (null) when the connection dropped before the server said. */
  answers: number | null;
  coinSpent: number | null;
}

export interface CallState {
  phase: CallPhase;
  callId: string | null;
  coinPerAnswer: number | null;
  muted: boolean;
  transcript: TranscriptLine[];
  /** The reply being written or spoken. */
  replyId: string | null;
  /** The last turn that failed (the call goes on), shown until the next turn. */
  notice: { code: number; msg: string } | null;
  failure: StartFailure | null;
  summary: CallSummary | null;
}

export const READY_CALL: CallState = {
  phase: 'ready',
  callId: null,
  coinPerAnswer: null,
  muted: false,
  transcript: [],
  replyId: null,
  notice: null,
  failure: null,
  summary: null,
};

export type CallAction =
  | { type: 'start' }
  | { type: 'startFailed'; failure: StartFailure }
  | { type: 'started'; callId: string; coinPerAnswer: number }
  | { type: 'hearing' }
  | { type: 'heard'; text: string }
  | { type: 'replyDelta'; replyId: string; delta: string; offset: number }
  | { type: 'replyDone'; replyId: string; text: string | null; cancelled: boolean }
  | { type: 'speaking'; speaking: boolean }
  | { type: 'interrupted' }
  | { type: 'turnFailed'; code: number; msg: string }
  | { type: 'mute'; muted: boolean }
  | { type: 'ending' }
  | { type: 'ended'; summary: CallSummary };

const LIVE: ReadonlySet<CallPhase> = new Set(['listening', 'hearing', 'thinking', 'speaking']);

/** The call is open (its audio goes up, its events count). */
export function isLive(state: CallState): boolean {
  return LIVE.has(state.phase) || state.phase === 'ending';
}

function withReplyText(state: CallState, replyId: string, text: (before: string) => string): TranscriptLine[] {
  const at = state.transcript.findIndex((line) => line.id === replyId);
  if (at === -1)
    return [...state.transcript, { id: replyId, speaker: 'character', text: text(''), interrupted: false }];
  return state.transcript.map((line, i) => (i === at ? { ...line, text: text(line.text) } : line));
}

export function callReducer(state: CallState, action: CallAction): CallState {
  switch (action.type) {
    case 'start':
      return state.phase === 'ready' || state.phase === 'failed' || state.phase === 'ended'
        ? { ...READY_CALL, phase: 'starting', muted: state.muted }
        : state;
    case 'startFailed':
      return state.phase === 'starting' ? { ...state, phase: 'failed', failure: action.failure } : state;
    case 'started':
      return state.phase === 'starting'
        ? { ...state, phase: 'listening', callId: action.callId, coinPerAnswer: action.coinPerAnswer }
        : state;
    case 'hearing':
      // While she speaks the user's voice is a barge-in, which the hook handles.
      return state.phase === 'listening' ? { ...state, phase: 'hearing' } : state;
    case 'heard': {
      if (!isLive(state) || state.phase === 'ending') return state;
      const text = action.text.trim();
      // Nothing recognised: no turn, back to listening (unless she is still talking).
      if (!text) return state.phase === 'hearing' ? { ...state, phase: 'listening' } : state;
      const id = `u${state.transcript.filter((line) => line.speaker === 'user').length + 1}`;
      return {
        ...state,
        phase: state.phase === 'speaking' ? 'speaking' : 'thinking',
        notice: null,
        transcript: [...state.transcript, { id, speaker: 'user', text, interrupted: false }],
      };
    }
    case 'replyDelta':
      if (!isLive(state)) return state;
      return {
        ...state,
        replyId: action.replyId,
        transcript: withReplyText(state, action.replyId, (before) => before.slice(0, action.offset) + action.delta),
      };
    case 'replyDone': {
      if (!isLive(state)) return state;
      const transcript =
        action.text === null
          ? state.transcript
          : withReplyText(state, action.replyId, () => action.text ?? '').map((line) =>
              line.id === action.replyId && action.cancelled ? { ...line, interrupted: true } : line,
            );
      return { ...state, transcript };
    }
    case 'speaking':
      if (!isLive(state) || state.phase === 'ending') return state;
      if (action.speaking) return { ...state, phase: 'speaking' };
      return state.phase === 'speaking' ? { ...state, phase: 'listening', replyId: null } : state;
    case 'interrupted': {
      if (!isLive(state) || state.phase === 'ending') return state;
      const replyId = state.replyId;
      return {
        ...state,
        // She stopped because the user is talking.
        phase: 'hearing',
        replyId: null,
        transcript: state.transcript.map((line) => (line.id === replyId ? { ...line, interrupted: true } : line)),
      };
    }
    case 'turnFailed':
      if (!isLive(state) || state.phase === 'ending') return state;
      return {
        ...state,
        phase: state.phase === 'speaking' ? 'speaking' : 'listening',
        notice: { code: action.code, msg: action.msg },
      };
    case 'mute':
      return { ...state, muted: action.muted };
    case 'ending':
      return isLive(state) ? { ...state, phase: 'ending' } : state;
    case 'ended':
      return state.phase === 'ended' || state.phase === 'ready' || state.phase === 'failed'
        ? state
        : { ...state, phase: 'ended', summary: action.summary, replyId: null };
  }
}
