/**
 * The server's side of one realtime socket, for tests that start `startRealtime` with it:
 * `say` delivers an event as the server would, and `sent` holds what the client sent.
 */
import { act } from '@testing-library/react';
import type { RealtimeSocket } from '@/lib/realtime';

export class FakeSocket implements RealtimeSocket {
  onopen: RealtimeSocket['onopen'] = null;
  onmessage: RealtimeSocket['onmessage'] = null;
  onclose: RealtimeSocket['onclose'] = null;
  onerror: RealtimeSocket['onerror'] = null;
  sent: unknown[] = [];
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close() {}
  say(event: string, data: object) {
    act(() => this.onmessage?.({ data: JSON.stringify({ event, data }) } as MessageEvent));
  }
}
