/**
 * The image jobs a screen follows, tile by tile, as `image/generate` (or
 * `chat/requestPicture`) answered and the WebSocket's image events arrive (docs/api.md
 * "Images"). Pure: the store feeds it answers and events, tests feed it the same.
 *
 * - A job is followed from its answer (`jobStarted`): one tile per image id, queued.
 * - Events can come before the answer does (the server queues the images while answering);
 *   those of a job not followed yet are kept aside and applied when its answer arrives, so
 *   nothing is lost. Events of jobs this screen never started (another tab, the chat) stay
 *   aside and are dropped after `EARLY_EVENTS_KEPT`.
 * - A tile ends once: `done` with its image, or `failed` with the reason and what was
 *   refunded; a late progress event never brings it back.
 */
import type { GalleryImage } from '@/lib/api-types';
import type { ServerEventOf } from '@/lib/realtime-events';

export type ImageEvent =
  | ServerEventOf<'imageQueued'>
  | ServerEventOf<'imageProgress'>
  | ServerEventOf<'imageDone'>
  | ServerEventOf<'imageFailed'>;

export type FailReason = ServerEventOf<'imageFailed'>['data']['reason'];

export type Tile =
  | { imageId: string; status: 'queued'; position: number | null }
  | { imageId: string; status: 'running'; progress: number }
  | { imageId: string; status: 'done'; image: GalleryImage }
  | { imageId: string; status: 'failed'; reason: FailReason; code: number | null; msg: string; refunded: number };

export interface Job {
  jobId: string;
  /** Where the job was started: the generate screen, or a conversation (its character id). */
  origin: 'generate' | { chat: string };
  tiles: Tile[];
  /** Cancel was asked for; the tiles not done end as cancelled. */
  cancelling: boolean;
}

export interface JobsState {
  /** Newest first. */
  jobs: Job[];
  /** Events of jobs not followed (yet), oldest first. */
  early: ImageEvent[];
}

export const EMPTY_JOBS: JobsState = { jobs: [], early: [] };

/** How many events of unknown jobs are kept for an answer still on its way. */
export const EARLY_EVENTS_KEPT = 64;

export type JobsAction =
  | ImageEvent
  | { type: 'jobStarted'; jobId: string; imageIds: string[]; origin: Job['origin'] }
  | { type: 'cancelRequested'; jobId: string }
  /** The cancel was refused (the job had ended): the button comes back to nothing to do. */
  | { type: 'cancelSettled'; jobId: string }
  /** Images read from the gallery (after a reconnect, events may have been missed). */
  | { type: 'galleryImages'; images: GalleryImage[] }
  | { type: 'jobDismissed'; jobId: string };

export const isEnded = (tile: Tile) => tile.status === 'done' || tile.status === 'failed';
export const jobEnded = (job: Job) => job.tiles.every(isEnded);

function applyToTile(tile: Tile, event: ImageEvent): Tile {
  if (isEnded(tile)) return tile;
  switch (event.event) {
    case 'imageQueued':
      return tile.status === 'queued'
        ? { imageId: tile.imageId, status: 'queued', position: event.data.position }
        : tile;
    case 'imageProgress':
      return { imageId: tile.imageId, status: 'running', progress: Math.min(1, Math.max(0, event.data.progress)) };
    case 'imageDone':
      return { imageId: tile.imageId, status: 'done', image: event.data.image };
    case 'imageFailed': {
      const { reason, code, msg, refunded } = event.data;
      return { imageId: tile.imageId, status: 'failed', reason, code, msg, refunded };
    }
  }
}

/** The jobs with `event` applied, or null when no followed job has its image. */
function applyEvent(jobs: Job[], event: ImageEvent): Job[] | null {
  const { jobId, imageId } = event.data;
  const index = jobs.findIndex((job) => job.jobId === jobId);
  if (index < 0) return null;
  const job = jobs[index]!;
  if (!job.tiles.some((tile) => tile.imageId === imageId)) return null;
  const tiles = job.tiles.map((tile) => (tile.imageId === imageId ? applyToTile(tile, event) : tile));
  const next = { ...job, tiles, cancelling: job.cancelling && !tiles.every(isEnded) };
  return jobs.map((other, i) => (i === index ? next : other));
}

export function jobsReducer(state: JobsState, action: JobsAction): JobsState {
  if ('event' in action) {
    const jobs = applyEvent(state.jobs, action);
    if (jobs) return { ...state, jobs };
    return { ...state, early: [...state.early, action].slice(-EARLY_EVENTS_KEPT) };
  }
  switch (action.type) {
    case 'jobStarted': {
      if (state.jobs.some((job) => job.jobId === action.jobId)) return state;
      const job: Job = {
        jobId: action.jobId,
        origin: action.origin,
        tiles: action.imageIds.map((imageId) => ({ imageId, status: 'queued', position: null })),
        cancelling: false,
      };
      let jobs = [job, ...state.jobs];
      const early: ImageEvent[] = [];
      for (const event of state.early) {
        if (event.data.jobId !== action.jobId) {
          early.push(event);
          continue;
        }
        jobs = applyEvent(jobs, event) ?? jobs;
      }
      return { jobs, early };
    }
    case 'cancelRequested':
      return {
        ...state,
        jobs: state.jobs.map((job) =>
          job.jobId === action.jobId && !jobEnded(job) ? { ...job, cancelling: true } : job,
        ),
      };
    case 'cancelSettled':
      return {
        ...state,
        jobs: state.jobs.map((job) => (job.jobId === action.jobId ? { ...job, cancelling: false } : job)),
      };
    case 'galleryImages': {
      const byId = new Map(action.images.map((image) => [image.imageId, image]));
      let jobs = state.jobs;
      for (const image of action.images) {
        jobs =
          applyEvent(jobs, {
            event: 'imageDone',
            data: { jobId: image.jobId, imageId: image.imageId, image: byId.get(image.imageId)! },
          }) ?? jobs;
      }
      return jobs === state.jobs ? state : { ...state, jobs };
    }
    case 'jobDismissed':
      return { ...state, jobs: state.jobs.filter((job) => job.jobId !== action.jobId) };
  }
}

/** What a job's tiles add up to: how many are done, failed, and the coins refunded. */
export function jobSummary(job: Job): { done: number; failed: number; refunded: number; running: number } {
  let done = 0;
  let failed = 0;
  let refunded = 0;
  for (const tile of job.tiles) {
    if (tile.status === 'done') done += 1;
    if (tile.status === 'failed') {
      failed += 1;
      refunded += tile.refunded;
    }
  }
  return { done, failed, refunded, running: job.tiles.length - done - failed };
}
