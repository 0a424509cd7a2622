/** The blog: its posts, and an editor (front matter fields + Markdown, preview beside it). */
import { useMemo, useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { LoadError } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { errorText, opGet, opPost } from '@/operator/lib/api';
import { buildPostFile, parsePostFile, postProblems, today, type PostFields } from '@/operator/lib/blog';
import { renderMarkdown } from '@/operator/lib/markdown';
import type { BlogPostSummary } from '@/operator/lib/types';

const EMPTY = (): PostFields => ({ key: '', title: '', description: '', date: today(), cover: '', markdown: '' });

export function BlogDesk() {
  const list = useLoad((signal) => opGet<{ posts: BlogPostSummary[] }>('blog/posts', undefined, signal), []);
  const action = useAction(() => list.reload());
  const [post, setPost] = useState<PostFields | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);

  const open = async (key: string) => {
    setOpenError(null);
    try {
      const answer = await opGet<{ key: string; file: string }>('blog/post', { key });
      setPost(parsePostFile(answer.file));
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
        <button type="button" onClick={() => setPost(EMPTY())} data-testid="blog-new">
          New post
        </button>
      </div>
      <table className="op-table" data-testid="blog-posts">
        <thead>
          <tr>
            <th>Date</th>
            <th>Title</th>
            <th>Key</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data?.posts ?? []).map((p) => (
            <tr key={p.key} data-testid="blog-post-row" data-key={p.key}>
              <td>{p.date}</td>
              <td>{p.title}</td>
              <td>
                <code>{p.key}</code>
              </td>
              <td className="op-row">
                <button type="button" onClick={() => void open(p.key)} data-testid="blog-edit">
                  Edit
                </button>
                <button
                  type="button"
                  className="op-danger"
                  data-testid="blog-unpublish"
                  onClick={() =>
                    action.ask({
                      title: 'Unpublish post',
                      detail: `“${p.title}” leaves the blog.`,
                      run: (reason) => opPost('blog/unpublish', { key: p.key, reason }),
                    })
                  }
                >
                  Unpublish
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {post && (
        <BlogEditor
          post={post}
          onChange={setPost}
          onPublish={() =>
            action.ask({
              title: 'Publish post',
              detail: `“${post.title}” goes on /blog (a post with the same key is replaced).`,
              run: (reason) => opPost('blog/publish', { file: buildPostFile(post), reason }),
            })
          }
        />
      )}
      {action.prompt}
    </section>
  );
}

function BlogEditor({
  post,
  onChange,
  onPublish,
}: {
  post: PostFields;
  onChange: (post: PostFields) => void;
  onPublish: () => void;
}) {
  const preview = useMemo(() => renderMarkdown(post.markdown), [post.markdown]);
  const problems = postProblems(post);
  const field = (name: Exclude<keyof PostFields, 'markdown'>, label: string, type = 'text') => (
    <label className="op-field">
      <span>{label}</span>
      <input
        type={type}
        value={post[name]}
        data-testid={`blog-${name}`}
        onChange={(e) => onChange({ ...post, [name]: e.target.value })}
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
      </div>
      <div className="op-split">
        <label className="op-field">
          <span>Markdown</span>
          <textarea
            rows={20}
            value={post.markdown}
            data-testid="blog-markdown"
            onChange={(e) => onChange({ ...post, markdown: e.target.value })}
          />
        </label>
        <div>
          <span className="op-muted">Preview (raw HTML is left out)</span>
          {/* renderMarkdown drops raw HTML and unsafe link addresses (lib/markdown.ts). */}
          <div className="op-preview" data-testid="blog-preview" dangerouslySetInnerHTML={{ __html: preview }} />
        </div>
      </div>
      {problems.length > 0 && (
        <ul className="op-error" data-testid="blog-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <button
        type="button"
        className="op-primary"
        disabled={problems.length > 0}
        onClick={onPublish}
        data-testid="blog-publish"
      >
        Publish
      </button>
    </section>
  );
}
