/** Line icons only the chat screen uses (24×24, currentColor), kept out of the first screen's bundle. */
import { Svg, type IconProps } from '@/components/svg-icon';

export const SendIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 12 20 4l-5 16-3.5-6.5z" />
    <path d="M11.5 13.5 20 4" />
  </Svg>
);
export const StopIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="6.5" y="6.5" width="11" height="11" rx="2.5" fill="currentColor" stroke="none" />
  </Svg>
);
export const RegenerateIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M20 11a8 8 0 0 0-14.3-4.9L4 8" />
    <path d="M4 3.5V8h4.5" />
    <path d="M4 13a8 8 0 0 0 14.3 4.9L20 16" />
    <path d="M20 20.5V16h-4.5" />
  </Svg>
);
/** Go on writing: a line of text running on past a marker. */
export const ContinueIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M4 12h11" />
    <path d="m12 7 5 5-5 5" />
    <path d="M20 6v12" />
  </Svg>
);
export const MemoryIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M9.5 4.5a3 3 0 0 0-5 2.2 3 3 0 0 0-1 5.3 3.2 3.2 0 0 0 2.6 5 3 3 0 0 0 3.4 2.5V4.5z" />
    <path d="M14.5 4.5a3 3 0 0 1 5 2.2 3 3 0 0 1 1 5.3 3.2 3.2 0 0 1-2.6 5 3 3 0 0 1-3.4 2.5V4.5z" />
    <path d="M9.5 4.5a2.5 2.5 0 0 1 5 0" />
  </Svg>
);

export const PictureIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="3.5" y="5" width="17" height="14" rx="2.5" />
    <circle cx="9" cy="10" r="1.6" />
    <path d="m4 17 5-4.5 4 3.5 3-2.5 4 3.5" />
  </Svg>
);

/** A push pin: a memory that is in every prompt. */
export const PinIcon = ({ filled, ...p }: IconProps & { filled?: boolean }) => (
  <Svg {...p}>
    <path d="M9 4h6l-1 6 3 3H7l3-3z" fill={filled ? 'currentColor' : 'none'} />
    <path d="M12 13v7" />
  </Svg>
);
