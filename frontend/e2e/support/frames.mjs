// The frames a page's sockets receive from /lust/api/ws, for journeys that wait on what
// the server sent (a reply stored, a version chosen) rather than on what the page shows.

/** Every frame the page's sockets receive from /lust/api/ws, parsed, in order (it grows). */
export function recordFrames(page) {
  const frames = [];
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.endsWith('/lust/api/ws')) return;
    socket.on('framereceived', ({ payload }) => frames.push(JSON.parse(String(payload))));
  });
  return frames;
}

/** The first frame after `from` (an index into `frames`) that `predicate` accepts. */
export async function frameAfter(frames, from, predicate, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = frames.slice(from).find(predicate);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seen = frames
    .slice(from)
    .filter((f) => f.event !== 'chatDelta')
    .map((f) => f.event);
  throw new Error(`no ${what} within ${timeoutMs / 1000} s; after it came: ${seen.join(', ')}`);
}
