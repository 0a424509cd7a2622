import { useTranslation } from 'react-i18next';
import { NeedPayCard } from '@/components/need-pay-offer';
import styles from '@/features/chat/components/chat.module.css';
import type { Playback } from '@/features/chat/stores/voice-playback';
import { ApiCode } from '@/lib/api-types';
import { displayCoins } from '@/lib/site';

export type VoiceButtonState = 'idle' | 'loading' | 'playing' | 'failed';

const PlayGlyph = () => (
  <svg width="14" height="14" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true">
    <path d="M8 5.5v13a1 1 0 0 0 1.5.86l10.5-6.5a1 1 0 0 0 0-1.72L9.5 4.64A1 1 0 0 0 8 5.5z" />
  </svg>
);
const StopGlyph = () => (
  <svg width="14" height="14" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true">
    <rect x="6" y="6" width="12" height="12" rx="2" />
  </svg>
);

export interface PlayButtonProps {
  state: VoiceButtonState;
  /** The message was spoken in this session: playing it again is free. */
  spokenBefore: boolean;
  /** `genVoiceCoin`, in coin units. */
  cost: number;
  failure: Playback['failure'];
  onToggle: () => void;
  onDismiss: () => void;
}

/**
 * A character message's play button (docs/api.md "Voice"): the first play shows what it
 * costs, later plays are free; while the parts play it is a stop button. Too few tokens
 * brings the buy/upgrade offer; other failures say so.
 */
export function PlayButton({ state, spokenBefore, cost, failure, onToggle, onDismiss }: PlayButtonProps) {
  const { t } = useTranslation('voice');
  const busy = state === 'loading' || state === 'playing';
  const label = busy ? t('stop') : spokenBefore ? t('replay') : t('play', { tokens: displayCoins(cost) });
  return (
    <>
      <div className={styles.voiceRow}>
        <button
          type="button"
          className={styles.voiceButton}
          onClick={onToggle}
          aria-label={label}
          title={label}
          data-testid="voice-play"
          data-state={state}
        >
          {busy ? <StopGlyph /> : <PlayGlyph />}
          <span>
            {state === 'loading'
              ? t('preparing')
              : state === 'playing'
                ? t('playing')
                : spokenBefore
                  ? t('replayShort')
                  : t('playShort', { tokens: displayCoins(cost) })}
          </span>
        </button>
        {state === 'failed' && failure && failure.code !== ApiCode.needPay && (
          <span className={styles.voiceError} role="alert" data-testid="voice-error">
            {failure.code === ApiCode.rateLimited ? t('busy') : t('failed')}
          </span>
        )}
      </div>
      {state === 'failed' && failure?.code === ApiCode.needPay && <NeedPayCard onDismiss={onDismiss} />}
    </>
  );
}
