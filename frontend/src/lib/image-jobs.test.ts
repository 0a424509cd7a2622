import { describe, expect, it } from 'vitest';
import type { GalleryImage } from '@/lib/api-types';
import {
  EARLY_EVENTS_KEPT,
  EMPTY_JOBS,
  jobEnded,
  jobsReducer,
  jobSummary,
  type JobsAction,
  type JobsState,
} from '@/lib/image-jobs';

const image = (imageId: string, jobId = 'j1'): GalleryImage => ({
  imageId,
  jobId,
  characterId: 'gf-001',
  characterName: 'Mia',
  prompt: 'at the beach',
  scene: 'beach',
  outfit: null,
  pose: null,
  style: null,
  url: `/media/img-${imageId}`,
  width: 768,
  height: 1024,
  nsfw: false,
  illustration: true,
  shared: false,
  createdAt: 1,
});
const queued = (imageId: string, position: number, jobId = 'j1'): JobsAction => ({
  event: 'imageQueued',
  data: { jobId, imageId, characterId: 'gf-001', position },
});
const progress = (imageId: string, value: number, jobId = 'j1'): JobsAction => ({
  event: 'imageProgress',
  data: { jobId, imageId, progress: value },
});
const done = (imageId: string, jobId = 'j1'): JobsAction => ({
  event: 'imageDone',
  data: { jobId, imageId, image: image(imageId, jobId) },
});
const failed = (imageId: string, reason: 'failed' | 'cancelled', jobId = 'j1'): JobsAction => ({
  event: 'imageFailed',
  data: { jobId, imageId, reason, code: reason === 'cancelled' ? null : 50000, msg: 'backend down', refunded: 20 },
});
const started: JobsAction = { type: 'jobStarted', jobId: 'j1', imageIds: ['a', 'b'], origin: 'generate' };
const run = (actions: JobsAction[], from: JobsState = EMPTY_JOBS) => actions.reduce(jobsReducer, from);

describe('image job tiles', () => {
  it('shows one queued tile per image, then progress, then each image as it is done', () => {
    let state = run([started]);
    expect(state.jobs[0]!.tiles.map((t) => t.status)).toEqual(['queued', 'queued']);
    state = run([queued('a', 0), queued('b', 1), progress('a', 0.5)], state);
    expect(state.jobs[0]!.tiles).toEqual([
      { imageId: 'a', status: 'running', progress: 0.5 },
      { imageId: 'b', status: 'queued', position: 1 },
    ]);
    state = run([done('a')], state);
    expect(state.jobs[0]!.tiles[0]).toMatchObject({ status: 'done', image: { url: '/media/img-a' } });
    expect(jobEnded(state.jobs[0]!)).toBe(false);
    state = run([done('b')], state);
    expect(jobEnded(state.jobs[0]!)).toBe(true);
    expect(jobSummary(state.jobs[0]!)).toEqual({ done: 2, failed: 0, refunded: 0, running: 0 });
  });

  it('keeps events that come before the answer and applies them when it arrives', () => {
    let state = run([queued('a', 0), queued('b', 1), done('a')]);
    expect(state.jobs).toEqual([]);
    expect(state.early).toHaveLength(3);
    state = run([started], state);
    expect(state.early).toEqual([]);
    expect(state.jobs[0]!.tiles.map((t) => t.status)).toEqual(['done', 'queued']);
  });

  it('shows a failed image with what was refunded, and a late progress event does not revive it', () => {
    const state = run([started, failed('a', 'failed'), progress('a', 0.9), done('b')]);
    expect(state.jobs[0]!.tiles[0]).toEqual({
      imageId: 'a',
      status: 'failed',
      reason: 'failed',
      code: 50000,
      msg: 'backend down',
      refunded: 20,
    });
    expect(jobSummary(state.jobs[0]!)).toEqual({ done: 1, failed: 1, refunded: 20, running: 0 });
  });

  it('cancelling ends when every tile has ended', () => {
    let state = run([started, done('a'), { type: 'cancelRequested', jobId: 'j1' }]);
    expect(state.jobs[0]!.cancelling).toBe(true);
    state = run([failed('b', 'cancelled')], state);
    expect(state.jobs[0]!.cancelling).toBe(false);
    expect(state.jobs[0]!.tiles[1]).toMatchObject({ status: 'failed', reason: 'cancelled', code: null });
    // An ended job cannot be cancelled again.
    expect(run([{ type: 'cancelRequested', jobId: 'j1' }], state).jobs[0]!.cancelling).toBe(false);
  });

  it('fills tiles from gallery images after a reconnect, leaving other jobs alone', () => {
    const second: JobsAction = { type: 'jobStarted', jobId: 'j2', imageIds: ['c'], origin: { chat: 'gf-001' } };
    const state = run([started, second, { type: 'galleryImages', images: [image('b'), image('z', 'j9')] }]);
    expect(state.jobs.map((j) => j.jobId)).toEqual(['j2', 'j1']);
    expect(state.jobs[1]!.tiles.map((t) => t.status)).toEqual(['queued', 'done']);
    expect(state.jobs[0]!.tiles[0]!.status).toBe('queued');
  });

  it('keeps a bounded number of events of jobs it does not follow', () => {
    const many = Array.from({ length: EARLY_EVENTS_KEPT + 10 }, (_, i) => queued(`x${i}`, i, `other${i}`));
    const state = run(many);
    expect(state.early).toHaveLength(EARLY_EVENTS_KEPT);
    expect(state.early[0]!.data.jobId).toBe('other10');
  });

  it('starting the same job twice adds it once, and a dismissed job is gone', () => {
    let state = run([started, started]);
    expect(state.jobs).toHaveLength(1);
    state = run([{ type: 'jobDismissed', jobId: 'j1' }], state);
    expect(state.jobs).toEqual([]);
  });
});
