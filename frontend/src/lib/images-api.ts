/**
 * The image calls of docs/api.md "Images": the presets, a generation job and its cancel,
 * the user's gallery and the public feed, and a picture asked for in chat. The images of a
 * job arrive over the WebSocket (`imageQueued`, `imageProgress`, `imageDone`, `imageFailed`).
 */
import { apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type FeedImage,
  type FeedRequest,
  type GalleryCharacter,
  type GalleryImage,
  type GalleryRequest,
  type GenerateRequest,
  type ImageOptions,
  type ImagePage,
  type ImageRef,
  type JobRef,
  type JobStarted,
  type PictureRequest,
  type ShareRequest,
} from '@/lib/api-types';

export type {
  FeedImage,
  GalleryCharacter,
  GalleryImage,
  GenerateRequest,
  ImageOptions,
  ImagePage,
  ImagePreset,
  JobStarted,
} from '@/lib/api-types';

export type PresetGroup = 'scenes' | 'outfits' | 'poses' | 'styles';
export const PRESET_GROUPS: readonly PresetGroup[] = ['scenes', 'outfits', 'poses', 'styles'];

/** The payload field that names a preset of each group. */
export const PRESET_FIELD = { scenes: 'scene', outfits: 'outfit', poses: 'pose', styles: 'style' } as const;

/** The longest prompt, in characters, as the server enforces. */
export const PROMPT_MAX_CHARS = 500;
/** Gallery and feed page size: the server's default. */
export const GALLERY_PAGE_SIZE = 24;

/**
 * Refusals a screen explains in place (bad data, content not allowed, unknown character, too
 * many jobs) and `needPay`, which it answers with the buy/upgrade offer card.
 */
const EXPLAINED = [
  ApiCode.paramError,
  ApiCode.inputContentIllegal,
  ApiCode.notFound,
  ApiCode.rateLimited,
  ApiCode.needPay,
];

/** POST image/getImageOptions: open to everyone; NSFW presets only when the viewer allows them. */
export function getImageOptions() {
  return apiPost<ImageOptions>('/user/v1/image/getImageOptions', {});
}

/** POST image/generate: the job's cost is debited before it starts. */
export function generateImages(request: GenerateRequest) {
  return apiPost<JobStarted>('/user/v1/image/generate', request, { handledCodes: EXPLAINED });
}

/** POST image/cancel: images not done yet end as `imageFailed` (cancelled) and are refunded. */
export function cancelJob(jobId: string) {
  return apiPost<boolean>('/user/v1/image/cancel', { jobId } satisfies JobRef, { handledCodes: [ApiCode.notFound] });
}

/** POST image/getGallery: the user's images, newest first. */
export function getGallery(query: GalleryRequest = {}) {
  return apiPost<ImagePage<GalleryImage>>('/user/v1/image/getGallery', { pageSize: GALLERY_PAGE_SIZE, ...query });
}

/** POST image/getGalleryCharacters: the characters the user has images of, most recent first. */
export function getGalleryCharacters() {
  return apiPost<GalleryCharacter[]>('/user/v1/image/getGalleryCharacters', {});
}

/** POST image/deleteImage: the image, its variants and its feed entry are gone. */
export function deleteImage(imageId: string) {
  return apiPost<boolean>('/user/v1/image/deleteImage', { imageId } satisfies ImageRef);
}

/** POST image/shareImage: into (or out of) the public feed; the prompt is moderated again (10070). */
export function shareImage(imageId: string, shared: boolean) {
  return apiPost<GalleryImage>('/user/v1/image/shareImage', { imageId, shared } satisfies ShareRequest, {
    handledCodes: [ApiCode.inputContentIllegal],
  });
}

/** POST image/getFeed: the public feed, open to everyone, newest first. */
export function getFeed(query: FeedRequest = {}) {
  return apiPost<ImagePage<FeedImage>>('/user/v1/image/getFeed', { pageSize: GALLERY_PAGE_SIZE, ...query });
}

/** POST chat/requestPicture: one image of the conversation's character, priced like image/generate. */
export function requestPicture(characterId: string, prompt?: string) {
  return apiPost<JobStarted>(
    '/user/v1/chat/requestPicture',
    { characterId, ...(prompt ? { prompt } : {}) } satisfies PictureRequest,
    { handledCodes: EXPLAINED },
  );
}
