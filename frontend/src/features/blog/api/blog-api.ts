/** The blog's calls (docs/api.md "Blog"): a page of posts, newest first, and one post. */
import { apiPost } from '@/lib/api-client';
import { ApiCode, type BlogArticle, type BlogInfoRequest, type BlogListRequest, type BlogPage } from '@/lib/api-types';

export type { BlogArticle, BlogCard, BlogPage } from '@/lib/api-types';

/** Posts per page of the list. */
export const BLOG_PAGE_SIZE = 9;

/** POST blog/getBlogList {pageNo, pageSize}. */
export function getBlogList(pageNo: number) {
  return apiPost<BlogPage>('/user/v1/blog/getBlogList', { pageNo, pageSize: BLOG_PAGE_SIZE } satisfies BlogListRequest);
}

/** POST blog/getBlogInfo {blogKey}; 10006 when there is no such post. */
export function getBlogInfo(blogKey: string) {
  return apiPost<BlogArticle>('/user/v1/blog/getBlogInfo', { blogKey } satisfies BlogInfoRequest, {
    handledCodes: [ApiCode.notFound, ApiCode.paramError],
  });
}

/** `2024-10-21` as the reader's language writes a day, without shifting it by time zone. */
export function formatPostDate(date: string, language: string): string {
  const [year, month, day] = date.split('-').map(Number);
  if (!year || !month || !day) return date;
  return new Intl.DateTimeFormat(language, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(year, month - 1, day)),
  );
}
