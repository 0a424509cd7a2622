import i18n from 'i18next';
import { describe, expect, it } from 'vitest';
import { chatErrorText } from '@/features/chat/lib/error-text';
import { ApiCode } from '@/lib/api-types';
import en from '../../../../public/locales/en/translation.json';

const text = (code: number, msg: string) => chatErrorText(i18n.t, code, msg);

describe('chatErrorText', () => {
  it('translates the codes a chat action is refused with, whatever the server said', () => {
    expect(text(ApiCode.inputContentIllegal, 'content not allowed')).toBe(en.chat.refused);
    expect(text(ApiCode.needPay, 'no free messages left today')).toBe(en.chat.errors.needPay);
    expect(text(ApiCode.rateLimited, 'a reply is already being written')).toBe(en.chat.errors.rateLimited);
    expect(text(ApiCode.paramError, 'bad data')).toBe(en.chat.errors.paramError);
    expect(text(ApiCode.notFound, 'no such character')).toBe(en.chat.errors.notFound);
  });

  it('shows the server’s message for other codes, or the generic error without one', () => {
    expect(text(ApiCode.serverError, 'The model did not answer.')).toBe('The model did not answer.');
    expect(text(ApiCode.serverError, '')).toBe(en.CommonErrorMsg);
  });
});
