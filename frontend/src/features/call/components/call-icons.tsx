/** Line icons of the call (24×24, currentColor), loaded with the chat screen, not the first one. */
import { Svg, type IconProps } from '@/components/svg-icon';

export const PhoneIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M5 4h3.5l1.7 4.3-2.2 1.4a11 11 0 0 0 6.3 6.3l1.4-2.2L20 15.5V19a1 1 0 0 1-1 1A16 16 0 0 1 4 5a1 1 0 0 1 1-1z" />
  </Svg>
);

export const HangUpIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3.5 14.5c5-4.7 12-4.7 17 0l-1.8 2.6-3.5-1.3v-2.6a11 11 0 0 0-6.4 0v2.6l-3.5 1.3z" />
  </Svg>
);

export const MicIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="9" y="3" width="6" height="11" rx="3" />
    <path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21" />
  </Svg>
);

export const MicOffIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M15 10V6a3 3 0 0 0-5.7-1.3M9 9v2a3 3 0 0 0 4.6 2.5" />
    <path d="M5.5 11a6.5 6.5 0 0 0 10.6 5M18.5 11a6.5 6.5 0 0 1-.4 2.2M12 17.5V21M4 4l16 16" />
  </Svg>
);
