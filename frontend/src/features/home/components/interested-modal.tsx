import { useTranslation } from 'react-i18next';
import { Modal } from '@/components/modal';
import styles from '@/features/home/components/interested-modal.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';

function Portrait({ gender }: { gender: GenderValue }) {
  const guys = gender === Gender.guys;
  return (
    <svg width="60" height="60" viewBox="0 0 60 60" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id={`interest-${gender}`} x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor={guys ? '#7cc4ff' : '#ff7ab6'} />
          <stop offset="1" stopColor={guys ? '#8b5cf6' : '#b05cff'} />
        </linearGradient>
      </defs>
      {guys ? (
        <path
          d="M30 8c-9 0-15 6-15 14 0 3 1 5 2 7 1-5 4-8 8-9 5 3 11 3 17 1 1 3 2 6 2 9 2-2 3-5 3-8 0-8-8-14-17-14z"
          fill="#2a1236"
        />
      ) : (
        <path
          d="M30 6c-11 0-18 8-18 19 0 11 2 22 0 31 6-2 10-10 11-18 0-5 1-10 3-13 5 2 11 2 17-2 2 5 2 10 1 16 2 7 6 13 12 15-3-12 0-23-1-32-1-9-14-16-25-16z"
          fill="#2a1236"
        />
      )}
      <ellipse cx="30" cy="24" rx="10" ry="12" fill={`url(#interest-${gender})`} />
      <path d="M10 60c2-14 10-22 20-22s18 8 20 22z" fill={`url(#interest-${gender})`} />
    </svg>
  );
}

/** First-visit question 'I'm Interested in:' with the two gender options (spec section 2). */
export function InterestedModal({ open, onChoose }: { open: boolean; onChoose: (gender: GenderValue) => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      open={open}
      onClose={() => undefined}
      dismissible={false}
      title={t('home.interestedTitle')}
      closeLabel={t('common.close')}
      width={440}
      testId="interested-modal"
    >
      <div className={styles.content}>
        <h2 className={styles.title}>{t('home.interestedTitle')}</h2>
        <p className={styles.text}>{t('home.interestedText')}</p>
        <div className={styles.options}>
          {([Gender.girls, Gender.guys] as const).map((gender) => (
            <button
              key={gender}
              type="button"
              className={styles.option}
              onClick={() => onChoose(gender)}
              data-gender={gender}
            >
              <span className={styles.art}>
                <Portrait gender={gender} />
              </span>
              {gender === Gender.guys ? t('gender.guys') : t('gender.girls')}
            </button>
          ))}
        </div>
      </div>
    </Modal>
  );
}
