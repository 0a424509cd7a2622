import { ApiCode } from '@/lib/api-types';

/** Why an image request was refused, as a key of the `images` namespace. */
export function imageErrorKey(code: number) {
  switch (code) {
    case ApiCode.inputContentIllegal:
      return 'errors.refused' as const;
    case ApiCode.rateLimited:
      return 'errors.busy' as const;
    case ApiCode.paramError:
      return 'errors.paramError' as const;
    case ApiCode.notFound:
      return 'errors.notFound' as const;
    default:
      return 'errors.generic' as const;
  }
}
