import type { ButtonHTMLAttributes } from 'react';
import styles from '@/components/button.module.css';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'ghost';
  size?: 'normal' | 'small';
  block?: boolean;
}

/** Class names of the button look, for links that should look like buttons. */
export function buttonClassName({
  variant = 'primary',
  size = 'normal',
  block = false,
}: Omit<ButtonProps, 'type'> = {}) {
  return [styles.button, styles[variant], size === 'small' ? styles.small : '', block ? styles.block : '']
    .filter(Boolean)
    .join(' ');
}

export function Button({ variant, size, block, className, type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={`${buttonClassName({ variant, size, block })} ${className ?? ''}`} {...rest} />;
}
