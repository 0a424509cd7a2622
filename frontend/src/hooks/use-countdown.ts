import { useEffect, useRef, useState } from 'react';
import { currentDeadline, renewDeadline, splitRemaining, type Remaining } from '@/lib/countdown';

/** Hours, minutes and seconds to the promo deadline, ticking every second while enabled. */
export function useCountdown(enabled: boolean): Remaining | null {
  const [now, setNow] = useState(() => Date.now());
  const [deadline, setDeadline] = useState<number | null>(null);
  const deadlineRef = useRef<number | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const start = Date.now();
    deadlineRef.current = currentDeadline(start);
    setDeadline(deadlineRef.current);
    setNow(start);
    const id = setInterval(() => {
      const tick = Date.now();
      if (deadlineRef.current !== null && tick >= deadlineRef.current) {
        deadlineRef.current = renewDeadline(tick);
        setDeadline(deadlineRef.current);
      }
      setNow(tick);
    }, 1000);
    return () => clearInterval(id);
  }, [enabled]);

  if (!enabled || deadline === null) return null;
  return splitRemaining(deadline - now);
}
