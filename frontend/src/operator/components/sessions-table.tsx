/**
 * A user's live sessions (the Users desk), each with End: that session alone is signed out
 * (its sockets close), the others go on. The store keeps when a session was made and when
 * it expires, nothing else (no address, agent or last use), so that is what shows.
 */
import { When } from '@/operator/components/bits';
import type { PromptRequest } from '@/operator/components/reason-prompt';
import { opPost } from '@/operator/lib/api';
import type { UserSession } from '@/operator/lib/types';

export function SessionsTable({
  user,
  sessions,
  ask,
}: {
  user: string;
  sessions: UserSession[];
  ask: (request: PromptRequest) => void;
}) {
  if (sessions.length === 0) return <p className="op-muted">No live session.</p>;
  return (
    <table className="op-table" data-testid="user-sessions">
      <thead>
        <tr>
          <th>Session</th>
          <th>Signed in</th>
          <th>Expires</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {sessions.map((session) => (
          <tr key={session.sessionId} data-testid="session-row">
            <td>
              <code>{session.sessionId}</code>
            </td>
            <td>
              <When at={session.createdAt} />
            </td>
            <td>
              <When at={session.expiresAt} />
            </td>
            <td>
              <button
                type="button"
                data-testid="session-end"
                onClick={() =>
                  ask({
                    title: 'End session',
                    detail: `Session ${session.sessionId} is signed out; the user's other sessions go on.`,
                    run: (reason) => opPost('user/endSession', { user, session: session.sessionId, reason }),
                  })
                }
              >
                End
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
