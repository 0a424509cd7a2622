import { useCallback, useEffect, useReducer, useRef } from 'react';
import { speak } from '@/features/chat/api/voice-api';
import { currentPart, EMPTY_VOICE, needsRequest, voiceReducer } from '@/features/chat/stores/voice-playback';
import { useLatest } from '@/hooks/use-latest';
import { ApiCode } from '@/lib/api-types';
import { onServerEvent } from '@/lib/realtime';

/**
 * Spoken replies of one conversation: `toggle(messageId)` plays a character message (asking
 * the server the first time) or stops it; the parts play in order through the one audio
 * element the conversation renders (`audioRef`), and `voicePart`/`voiceFailed` events of this
 * character feed the sequence.
 */
export function useVoicePlayer(characterId: string) {
  const [state, dispatch] = useReducer(voiceReducer, EMPTY_VOICE);
  const audioRef = useRef<HTMLAudioElement>(null);
  const stateRef = useLatest(state);

  useEffect(
    () =>
      onServerEvent((event) => {
        if (event.event === 'voicePart' && event.data.characterId === characterId) {
          dispatch({ type: 'part', messageId: event.data.messageId, part: event.data.part });
        } else if (event.event === 'voiceFailed' && event.data.characterId === characterId) {
          dispatch({ type: 'failed', messageId: event.data.messageId, code: event.data.code, msg: event.data.msg });
        }
      }),
    [characterId],
  );

  const part = currentPart(state);
  const activeId = state.active?.messageId ?? null;
  const partUrl = part?.url ?? null;
  const partIndex = part?.index ?? null;

  // Point the audio element at the part to play; nothing to play pauses it.
  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    if (partUrl === null || partIndex === null || !activeId) {
      audio.pause();
      return;
    }
    const messageId = activeId;
    const index = partIndex;
    audio.onended = () => dispatch({ type: 'ended', messageId, index });
    audio.onerror = () => dispatch({ type: 'failed', messageId, code: ApiCode.serverError, msg: 'audio' });
    if (audio.getAttribute('src') !== partUrl) audio.src = partUrl;
    audio.currentTime = 0;
    const failed = (error: unknown) => {
      // A newer source replaced this one before it started: not a failure.
      if (error instanceof DOMException && error.name === 'AbortError') return;
      dispatch({ type: 'failed', messageId, code: ApiCode.serverError, msg: 'audio' });
    };
    try {
      // Older engines answer play() with nothing instead of a promise.
      void Promise.resolve(audio.play()).catch(failed);
    } catch (error) {
      failed(error);
    }
  }, [partUrl, partIndex, activeId]);

  // Leaving the conversation stops the sound.
  useEffect(() => () => audioRef.current?.pause(), []);

  const toggle = useCallback(
    async (messageId: string) => {
      const active = stateRef.current.active;
      if (active?.messageId === messageId && active.phase !== 'failed') {
        dispatch({ type: 'stop' });
        return;
      }
      const ask = needsRequest(stateRef.current, messageId);
      dispatch({ type: 'play', messageId });
      if (!ask) return;
      try {
        const envelope = await speak(characterId, messageId);
        if (envelope.success && envelope.data) {
          dispatch({ type: 'answer', messageId, parts: envelope.data.parts, complete: envelope.data.complete });
        } else {
          dispatch({ type: 'failed', messageId, code: envelope.code, msg: envelope.msg });
        }
      } catch {
        // The connection notification has been shown.
        dispatch({ type: 'failed', messageId, code: ApiCode.serverError, msg: '' });
      }
    },
    [characterId, stateRef],
  );

  const dismiss = useCallback(() => dispatch({ type: 'stop' }), []);

  return { state, audioRef, toggle, dismiss };
}
