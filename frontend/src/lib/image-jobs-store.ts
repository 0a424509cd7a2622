/**
 * The image jobs of this tab, shared by the generate screen and the chat (a picture asked
 * for in a conversation): one jotai atom fed by `jobsReducer`. It follows the WebSocket from
 * the first time a screen that shows jobs loads, for the rest of the session, so a job keeps
 * its tiles while the user looks elsewhere. After a reconnect (a second `hello`), events may
 * have been missed: the newest gallery page fills in the images that were done meanwhile.
 */
import { imageJobsAtom, store, userInfoAtom } from '@/app/store';
import { EMPTY_JOBS, jobEnded, jobsReducer, type JobsAction } from '@/lib/image-jobs';
import { getGallery } from '@/lib/images-api';
import { onServerEvent } from '@/lib/realtime';

export function dispatchJobs(action: JobsAction): void {
  store.set(imageJobsAtom, (state) => jobsReducer(state, action));
}

async function catchUp(): Promise<void> {
  if (store.get(imageJobsAtom).jobs.every(jobEnded)) return;
  try {
    const envelope = await getGallery({ pageSize: 60 });
    if (envelope.success && envelope.data) dispatchJobs({ type: 'galleryImages', images: envelope.data.images });
  } catch {
    // Offline again: the next reconnect tries again.
  }
}

let following = false;

/** Starts following the image events (once per tab). */
export function followImageJobs(): void {
  if (following) return;
  following = true;
  let helloSeen = false;
  onServerEvent((event) => {
    switch (event.event) {
      case 'imageQueued':
      case 'imageProgress':
      case 'imageDone':
      case 'imageFailed':
        dispatchJobs(event);
        break;
      case 'hello':
        if (helloSeen) void catchUp();
        helloSeen = true;
        break;
      default:
        break;
    }
  });
  // Another user (or none) on this tab: the jobs shown were someone else's.
  let userId = store.get(userInfoAtom)?.userId ?? null;
  store.sub(userInfoAtom, () => {
    const next = store.get(userInfoAtom)?.userId ?? null;
    if (next !== userId) store.set(imageJobsAtom, EMPTY_JOBS);
    userId = next;
  });
}
