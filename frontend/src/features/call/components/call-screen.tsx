/**
 * The call screen (issue 32): a full-screen overlay on a phone, a panel beside the chat on a
 * wide screen. Before the call: the character, what each answer costs (and, for free users,
 * that answers use the daily free messages), Start. During it: what is happening (listening,
 * hearing you, thinking, speaking), the live transcript, Mute and End call. After it: what the
 * call cost. Closing the screen ends the call. Loaded lazily by the Call button.
 */
import type { TFunction } from 'i18next';
import { useAtomValue } from 'jotai';
import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom, isPaidUserAtom } from '@/app/store';
import { Button } from '@/components/button';
import { CloseIcon } from '@/components/icons';
import type { CallTarget } from '@/features/call/components/call-button';
import { HangUpIcon, MicIcon, MicOffIcon, PhoneIcon } from '@/features/call/components/call-icons';
import styles from '@/features/call/components/call.module.css';
import { useCall } from '@/features/call/hooks/use-call';
import type { OpenMicrophone } from '@/features/call/lib/microphone';
import { isLive, type CallState, type StartFailure } from '@/features/call/stores/call-state';
import { useLatest } from '@/hooks/use-latest';
import { useIsMobile } from '@/hooks/use-media-query';
import { ApiCode } from '@/lib/api-types';
import { displayCoins } from '@/lib/site';

export interface CallScreenProps extends CallTarget {
  onClose: () => void;
  /** The microphone; tests hand in their own. */
  openMicrophone?: OpenMicrophone;
}

type T = TFunction<'call'>;

function failureText(t: T, failure: StartFailure): string {
  switch (failure.kind) {
    case 'microphone':
      return failure.problem === 'denied' ? t('failures.denied') : t('failures.unavailable');
    case 'offline':
      return t('failures.offline');
    case 'refused':
      if (failure.code === ApiCode.needPay) return t('failures.needPay');
      if (failure.code === ApiCode.rateLimited) return t('failures.busy');
      if (failure.code === ApiCode.notFound) return t('failures.notFound');
      return t('failures.other');
  }
}

function statusText(t: T, state: CallState, name: string): string {
  switch (state.phase) {
    case 'ready':
    case 'failed':
      return t('status.ready', { name });
    case 'starting':
      return t('status.starting');
    case 'listening':
      return state.muted ? t('status.muted') : t('status.listening');
    case 'hearing':
      return t('status.hearing');
    case 'thinking':
      return t('status.thinking', { name });
    case 'speaking':
      return t('status.speaking', { name });
    case 'ending':
      return t('status.ending');
    case 'ended':
      return t('status.ended');
  }
}

function endedText(t: T, reason: NonNullable<CallState['summary']>['reason']): string {
  switch (reason) {
    case 'user':
      return t('ended.user');
    case 'coin':
      return t('ended.coin');
    case 'idle':
      return t('ended.idle');
    case 'error':
      return t('ended.error');
    case 'dropped':
      return t('ended.dropped');
  }
}

export default function CallScreen({
  characterId,
  characterName,
  characterPhoto,
  creditsLeft,
  onClose,
  openMicrophone,
}: CallScreenProps) {
  const { t } = useTranslation('call');
  const call = useCall(characterId, openMicrophone ? { openMicrophone } : {});
  const { state, start, end, toggleMute, audioRef } = call;
  const { defaultEnergy } = useAtomValue(globalWebConfigAtom);
  const paid = useAtomValue(isPaidUserAtom);
  const mobile = useIsMobile();
  const live = isLive(state);
  const transcriptRef = useRef<HTMLOListElement>(null);

  // Closing ends the call (the hook also ends it when the screen goes away).
  const close = () => {
    if (live) end();
    onClose();
  };
  const closeRef = useLatest(close);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') closeRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [closeRef]);

  // The newest words in view.
  const lastText = state.transcript.at(-1)?.text;
  useEffect(() => {
    const list = transcriptRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [state.transcript.length, lastText]);

  const cost = displayCoins(state.coinPerAnswer ?? defaultEnergy.genVoiceCoin);
  const before = state.phase === 'ready' || state.phase === 'failed';
  const notice =
    state.notice && (state.notice.code === ApiCode.needPay ? t('notices.needPay') : t('notices.turnFailed'));

  const screen = (
    <div
      className={`${styles.backdrop} ${mobile ? styles.fullScreen : ''}`}
      data-testid="call-screen"
      data-phase={state.phase}
      onMouseDown={(event) => {
        if (event.target === event.currentTarget && !live) close();
      }}
    >
      <section
        className={styles.panel}
        role="dialog"
        aria-modal={mobile}
        aria-label={t('title', { name: characterName })}
      >
        <header className={styles.panelHead}>
          <span className={styles.panelTitle}>
            <PhoneIcon size={16} />
            {t('voiceCall')}
          </span>
          <button
            type="button"
            className={styles.close}
            onClick={close}
            aria-label={live ? t('endAndClose') : t('close')}
            title={live ? t('endAndClose') : t('close')}
            data-testid="call-close"
          >
            <CloseIcon size={18} />
          </button>
        </header>

        <div className={styles.stage}>
          <span className={`${styles.portraitRing} ${styles[`ring_${state.phase}`] ?? ''}`}>
            {characterPhoto && <img className={styles.portrait} src={characterPhoto} alt="" />}
          </span>
          <h2 className={styles.name} data-testid="call-character-name">
            {characterName}
          </h2>
          <p className={styles.status} role="status" data-testid="call-status">
            {statusText(t, state, characterName)}
          </p>
        </div>

        {before && (
          <div className={styles.before} data-testid="call-cost">
            <p className={styles.cost} data-testid="call-cost-answer">
              {t('cost', { tokens: cost })}
            </p>
            {!paid && (
              <p className={styles.costNote} data-testid="call-cost-free">
                {typeof creditsLeft === 'number' ? t('freeMessagesLeft', { left: creditsLeft }) : t('freeMessages')}
              </p>
            )}
            <p className={styles.costNote}>{t('terms')}</p>
            {state.failure && (
              <p className={styles.failure} role="alert" data-testid="call-failure" data-kind={state.failure.kind}>
                {failureText(t, state.failure)}
              </p>
            )}
            <Button block onClick={() => void start()} data-testid="call-start">
              <PhoneIcon size={18} />
              {state.failure ? t('tryAgain') : t('start')}
            </Button>
          </div>
        )}

        {!before && (
          <ol
            className={styles.transcript}
            ref={transcriptRef}
            aria-label={t('transcript')}
            data-testid="call-transcript"
          >
            {state.transcript.length === 0 && live && (
              <li className={styles.hint}>{t('sayHello', { name: characterName })}</li>
            )}
            {state.transcript.map((line) => (
              <li
                key={line.id}
                className={`${styles.line} ${line.speaker === 'user' ? styles.lineUser : styles.lineCharacter}`}
                data-testid="call-line"
                data-speaker={line.speaker}
              >
                <span className={styles.lineSpeaker}>{line.speaker === 'user' ? t('you') : characterName}</span>
                <span className={styles.lineText} data-testid="call-line-text">
                  {line.text}
                </span>
                {line.interrupted && <span className={styles.lineCut}>{t('interrupted')}</span>}
              </li>
            ))}
          </ol>
        )}

        {notice && live && (
          <p className={styles.notice} role="alert" data-testid="call-notice">
            {notice}
          </p>
        )}

        {(state.phase === 'starting' || live) && (
          <div className={styles.controls}>
            <button
              type="button"
              className={`${styles.roundButton} ${state.muted ? styles.roundOn : ''}`}
              onClick={toggleMute}
              aria-pressed={state.muted}
              disabled={state.phase === 'ending'}
              data-testid="call-mute"
            >
              {state.muted ? <MicOffIcon size={22} /> : <MicIcon size={22} />}
              <span>{state.muted ? t('unmute') : t('mute')}</span>
            </button>
            <button
              type="button"
              className={`${styles.roundButton} ${styles.hangUp}`}
              onClick={end}
              disabled={state.phase === 'ending'}
              data-testid="call-end"
            >
              <HangUpIcon size={22} />
              <span>{t('end')}</span>
            </button>
          </div>
        )}

        {state.phase === 'ended' && state.summary && (
          <div className={styles.summary} data-testid="call-summary" data-reason={state.summary.reason}>
            <p className={styles.summaryTitle}>{endedText(t, state.summary.reason)}</p>
            {state.summary.answers !== null && state.summary.coinSpent !== null && (
              <p
                className={styles.summaryCost}
                data-testid="call-summary-cost"
                data-answers={state.summary.answers}
                data-coin-spent={state.summary.coinSpent}
              >
                {t('summary', { answers: state.summary.answers, tokens: displayCoins(state.summary.coinSpent) })}
              </p>
            )}
            <p className={styles.costNote}>{t('inHistory')}</p>
            <div className={styles.summaryActions}>
              <Button variant="secondary" onClick={onClose} data-testid="call-done">
                {t('close')}
              </Button>
              <Button onClick={() => void start()} data-testid="call-again">
                {t('callAgain')}
              </Button>
            </div>
          </div>
        )}

        {/* The one audio element her answers play through. */}
        <audio ref={audioRef} preload="auto" data-testid="call-audio" hidden />
      </section>
    </div>
  );
  return createPortal(screen, document.body);
}
