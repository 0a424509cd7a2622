import { useEffect, useState } from 'react';
import { previewPortrait, type Looks, type PortraitPreview } from '@/features/create/api/create-api';
import type { GenderValue, Style } from '@/lib/api-types';

/** Wait this long after the last change of the looks before asking for a portrait. */
export const PREVIEW_DEBOUNCE_MS = 600;

/** Portraits already drawn, by looks: going back to a choice shows it at once. */
const drawn = new Map<string, PortraitPreview>();

export type PreviewState =
  | { status: 'idle' }
  | { status: 'loading'; previous: PortraitPreview | null }
  | { status: 'ready'; preview: PortraitPreview }
  | { status: 'failed'; previous: PortraitPreview | null };

function complete(style: string, looks: Looks): boolean {
  return (
    Boolean(
      style && looks.ethnicity && looks.eyes && looks.hairColor && looks.hairStyle && looks.body && looks.outfit,
    ) && looks.age >= 18
  );
}

/**
 * The portrait `character/previewPortrait` draws from these looks: asked for only when the
 * looks (or style, or gender) change, after a pause in the changes, so that dragging the age
 * slider or clicking through colours sends one request rather than one per change (the
 * server allows 30 a minute). While a new one is drawn the last one stays shown.
 */
/** The portrait a state shows, if any: the drawn one, or the last one while the next is drawn. */
function shown(current: PreviewState) {
  return current.status === 'ready' ? current.preview : current.status === 'idle' ? null : current.previous;
}

export function usePortraitPreview(gender: GenderValue, style: string, looks: Looks): PreviewState {
  const key = JSON.stringify({ gender, style, looks });
  const ready = complete(style, looks);
  const [state, setState] = useState<PreviewState>(() => {
    const cached = drawn.get(key);
    return cached ? { status: 'ready', preview: cached } : { status: 'idle' };
  });

  // New complete looks show their drawn portrait, or start loading, in the render that sees them.
  const asked = ready ? key : null;
  const [shownFor, setShownFor] = useState<string | null>(null);
  if (asked !== shownFor) {
    setShownFor(asked);
    if (asked !== null) {
      const cached = drawn.get(asked);
      setState((current) =>
        cached ? { status: 'ready', preview: cached } : { status: 'loading', previous: shown(current) },
      );
    }
  }

  useEffect(() => {
    if (!ready || drawn.has(key)) return;
    let live = true;
    const timer = setTimeout(() => {
      const { gender: g, style: s, looks: l } = JSON.parse(key) as { gender: GenderValue; style: Style; looks: Looks };
      previewPortrait(g, s, l)
        .then((envelope) => {
          if (!live) return;
          if (envelope.success && envelope.data?.image) {
            drawn.set(key, envelope.data);
            setState({ status: 'ready', preview: envelope.data });
          } else setState((current) => ({ status: 'failed', previous: shown(current) }));
        })
        .catch(() => {
          if (live) setState((current) => ({ status: 'failed', previous: shown(current) }));
        });
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, ready]);

  return state;
}
