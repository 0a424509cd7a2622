/** E-mail, password and the 6-digit code of the operator's authenticator app. */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { errorText, opPost } from '@/operator/lib/api';
import type { Operator } from '@/operator/lib/types';
import { useSession } from '@/operator/session';

export function SignInPage() {
  const { setOperator } = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(code)) return setError('The code is the 6 digits your authenticator app shows.');
    setBusy(true);
    setError(null);
    try {
      const operator = await opPost<Operator>('signIn', { email: email.trim(), password, code });
      setOperator(operator);
      navigate('/queues');
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="op-signin">
      <form
        className="op-card"
        onSubmit={(e) => void submit(e)}
        data-testid="sign-in-form"
        aria-label="Operator sign-in"
      >
        <h1>Amora operator console</h1>
        <label className="op-field">
          <span>E-mail</span>
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="sign-in-email"
          />
        </label>
        <label className="op-field">
          <span>Password</span>
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="sign-in-password"
          />
        </label>
        <label className="op-field">
          <span>6-digit code</span>
          <input
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d{6}"
            maxLength={6}
            required
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            data-testid="sign-in-code"
          />
        </label>
        {error && (
          <p role="alert" className="op-error" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button type="submit" className="op-primary" disabled={busy} data-testid="sign-in-submit">
          Sign in
        </button>
      </form>
    </main>
  );
}
