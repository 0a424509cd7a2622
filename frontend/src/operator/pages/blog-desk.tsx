/**
 * The blog: its posts with their state (published, scheduled with its time, unpublished),
 * and an editor (front matter fields + Markdown, preview beside it, an optional time to
 * publish at). Unpublishing keeps the post; publishing it again brings it back.
 */
import { useMemo, useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { LoadError, Problems, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { errorText, opGet, opPost } from '@/operator/lib/api';
import {
  buildPostFile,
  inputFromPublishAt,
  parsePostFile,
  postProblems,
  publishAtFromInput,
  today,
  type PostFields,
} from '@/operator/lib/blog';
import { renderMarkdown } from '@/operator/lib/markdown';
import type { BlogPostSummary, PostState } from '@/operator/lib/types';

const EMPTY = (): PostFields => ({ key: '', title: '', description: '', date: today(), cover: '', markdown: '' });

/** What the editor holds: the post's file fields and when to publish it (`datetime-local`; empty: now). */
interface Draft {
  post: PostFields;
  publishAt: string;
}

function PostStateCell({ state, publishAt }: { state: PostState; publishAt: number | null }) {
  if (state === 'scheduled')
    return (
      <span data-testid="blog-state">
        Scheduled <When at={publishAt} />
      </span>
    );
  return <span data-testid="blog-state">{state === 'published' ? 'Published' : 'Unpublished'}</span>;
}

export function BlogDesk() {
  const list = useLoad((signal) => opGet<{ posts: BlogPostSummary[] }>('blog/posts', undefined, signal), []);
  const action = useAction(() => list.reload());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);

  const open = async (key: string) => {
    setOpenError(null);
    try {
      const answer = await opGet<{ key: string; file: string; publishAt: number | null; state: PostState }>(
        'blog/post',
        { key },
      );
      // A scheduled post keeps its time unless changed; any other publishes now.
      const publishAt = answer.state === 'scheduled' && answer.publishAt ? inputFromPublishAt(answer.publishAt) : '';
      setDraft({ post: parsePostFile(answer.file), publishAt });
    } catch (caught) {
      setOpenError(errorText(caught));
    }
  };

  return (
    <section aria-label="Blog">
      <LoadError error={list.error} />
      {openError && (
        <p className="op-error" role="alert">
          {openError}
        </p>
      )}
      {action.notice}
      <div className="op-row">
        <button type="button" onClick={() => setDraft({ post: EMPTY(), publishAt: '' })} data-testid="blog-new">
          New post
        </button>
      </div>
      <table className="op-table" data-testid="blog-posts">
        <thead>
          <tr>
            <th>Date</th>
            <th>State</th>
            <th>Title</th>
            <th>Key</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data?.posts ?? []).map((p) => (
            <tr key={p.key} data-testid="blog-post-row" data-key={p.key}>
              <td>{p.date}</td>
              <td>
                <PostStateCell state={p.state} publishAt={p.publishAt} />
              </td>
              <td>{p.title}</td>
              <td>
                <code>{p.key}</code>
              </td>
              <td className="op-row">
                <button type="button" onClick={() => void open(p.key)} data-testid="blog-edit">
                  Edit
                </button>
                {p.state !== 'unpublished' && (
                  <button
                    type="button"
                    className="op-danger"
                    data-testid="blog-unpublish"
                    onClick={() =>
                      action.ask({
                        title: 'Unpublish post',
                        detail: `“${p.title}” leaves the blog and the sitemap; it is kept, to publish again.`,
                        run: (reason) => opPost('blog/unpublish', { key: p.key, reason }),
                      })
                    }
                  >
                    Unpublish
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {draft && (
        <BlogEditor
          draft={draft}
          onChange={setDraft}
          onPublish={() => {
            const publishAt = publishAtFromInput(draft.publishAt);
            const file = buildPostFile(draft.post);
            action.ask({
              title: publishAt ? 'Schedule post' : 'Publish post',
              detail: publishAt
                ? `“${draft.post.title}” goes on /blog at ${new Date(publishAt * 1000).toLocaleString()} (a post with the same key is replaced).`
                : `“${draft.post.title}” goes on /blog now (a post with the same key is replaced).`,
              run: (reason) => opPost('blog/publish', publishAt ? { file, publishAt, reason } : { file, reason }),
            });
          }}
        />
      )}
      {action.prompt}
    </section>
  );
}

function BlogEditor({
  draft,
  onChange,
  onPublish,
}: {
  draft: Draft;
  onChange: (draft: Draft) => void;
  onPublish: () => void;
}) {
  const { post } = draft;
  const preview = useMemo(() => renderMarkdown(post.markdown), [post.markdown]);
  const problems = postProblems(post);
  if (draft.publishAt && publishAtFromInput(draft.publishAt) === null) problems.push('publish at: a date and time');
  const field = (name: Exclude<keyof PostFields, 'markdown'>, label: string, type = 'text') => (
    <label className="op-field">
      <span>{label}</span>
      <input
        type={type}
        value={post[name]}
        data-testid={`blog-${name}`}
        onChange={(e) => onChange({ ...draft, post: { ...post, [name]: e.target.value } })}
      />
    </label>
  );
  return (
    <section className="op-card" aria-label="Post editor" data-testid="blog-editor">
      <div className="op-grid2">
        {field('key', 'Key (address /blogs/<key>)')}
        {field('title', 'Title')}
        {field('description', 'Description')}
        {field('date', 'Date', 'date')}
        {field('cover', 'Cover image URL')}
        <label className="op-field">
          <span>Publish at (your local time; empty: now)</span>
          <input
            type="datetime-local"
            value={draft.publishAt}
            data-testid="blog-publish-at"
            onChange={(e) => onChange({ ...draft, publishAt: e.target.value })}
          />
        </label>
      </div>
      <div className="op-split">
        <label className="op-field">
          <span>Markdown</span>
          <textarea
            rows={20}
            value={post.markdown}
            data-testid="blog-markdown"
            onChange={(e) => onChange({ ...draft, post: { ...post, markdown: e.target.value } })}
          />
        </label>
        <div>
          <span className="op-muted">Preview (raw HTML is left out)</span>
          {/* renderMarkdown drops raw HTML and unsafe link addresses (lib/markdown.ts). */}
          <div className="op-preview" data-testid="blog-preview" dangerouslySetInnerHTML={{ __html: preview }} />
        </div>
      </div>
      <Problems problems={problems} testId="blog-problems" />
      <button
        type="button"
        className="op-primary"
        disabled={problems.length > 0}
        onClick={onPublish}
        data-testid="blog-publish"
      >
        {draft.publishAt ? 'Schedule' : 'Publish'}
      </button>
    </section>
  );
}
