import { describe, expect, it } from 'vitest';
import { groupFieldError } from '@/features/groups/lib/field-errors';
import { ApiCode } from '@/lib/api-types';

describe('groupFieldError', () => {
  it('reads the field a 10001 names', () => {
    expect(groupFieldError(ApiCode.paramError, 'members: a group has 2 to 6 characters')).toEqual({
      field: 'members',
      key: 'groups.errors.members',
    });
    expect(groupFieldError(ApiCode.paramError, 'talkCap: must be 1 to 10')?.field).toBe('talkCap');
    expect(groupFieldError(ApiCode.paramError, 'name: must not be empty')?.field).toBe('name');
    expect(groupFieldError(ApiCode.paramError, 'something odd')?.field).toBe('other');
  });

  it('explains refusals and unavailable characters, and leaves other codes alone', () => {
    expect(groupFieldError(ApiCode.inputContentIllegal, '')?.key).toBe('chat.refused');
    expect(groupFieldError(ApiCode.notFound, '')?.key).toBe('groups.errors.notAllowed');
    expect(groupFieldError(50000, 'internal')).toBeNull();
  });
});
