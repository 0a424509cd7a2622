import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ShieldIcon } from '@/components/icons';
import styles from '@/features/auth/components/bot-check.module.css';
import {
  BOT_CHECK_DEVELOPMENT_TOKEN,
  BOT_CHECK_IDLE,
  useTurnstile,
  type BotCheckState,
} from '@/features/auth/hooks/use-bot-check';
import type { SignInConfig } from '@/lib/api-types';

interface BotCheckProps {
  /** null while the web config loads. */
  config: SignInConfig | null;
  language: string;
  onChange: (state: BotCheckState) => void;
}

function useReport(state: BotCheckState, onChange: (state: BotCheckState) => void) {
  useEffect(() => onChange(state), [state, onChange]);
}

function TurnstileCheck({
  siteKey,
  language,
  onChange,
}: {
  siteKey: string;
  language: string;
  onChange: BotCheckProps['onChange'];
}) {
  const { t } = useTranslation();
  const { containerRef, state, retry } = useTurnstile(siteKey, language);
  useReport(state, onChange);
  return (
    <div className={styles.turnstileWrap}>
      <div ref={containerRef} className={styles.turnstile} data-testid="turnstile" />
      {state.status === 'failed' && (
        <p className={styles.failed} role="alert">
          {t('login.botCheckError')}{' '}
          <button type="button" className={styles.retry} onClick={retry}>
            {t('login.botCheckRetry')}
          </button>
        </p>
      )}
    </div>
  );
}

/**
 * The stand-in when the server has no Turnstile secret: the server then accepts any token,
 * so this proves nothing and says so plainly.
 */
function DevelopmentCheck({ onChange }: { onChange: BotCheckProps['onChange'] }) {
  const { t } = useTranslation();
  const id = useId();
  const [checked, setChecked] = useState(false);
  return (
    <div className={styles.development} data-testid="bot-check-development">
      <label className={styles.developmentRow} htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          className={styles.checkbox}
          checked={checked}
          onChange={(event) => {
            setChecked(event.target.checked);
            onChange(
              event.target.checked ? { status: 'verified', token: BOT_CHECK_DEVELOPMENT_TOKEN } : BOT_CHECK_IDLE,
            );
          }}
          data-testid="bot-check-development-checkbox"
        />
        <span className={styles.developmentLabel}>{t('login.devCheckLabel')}</span>
        <ShieldIcon size={22} className={styles.shield} />
      </label>
      <p className={styles.developmentNote}>{t('login.devCheckNote')}</p>
    </div>
  );
}

/** The bot check the server's mode asks for (WebConfig.signIn.botCheckMode). */
export function BotCheck({ config, language, onChange }: BotCheckProps) {
  const { t } = useTranslation();
  if (!config) {
    return (
      <p className={styles.loading} data-testid="bot-check-loading">
        {t('common.loading')}
      </p>
    );
  }
  if (config.botCheckMode === 'development') return <DevelopmentCheck onChange={onChange} />;
  if (!config.turnstileSiteKey) {
    // Turnstile is on at the server but no site key was published: nothing can pass.
    return (
      <p className={styles.failed} role="alert">
        {t('login.botCheckError')}
      </p>
    );
  }
  return <TurnstileCheck siteKey={config.turnstileSiteKey} language={language} onChange={onChange} />;
}
