/** Content desk (admin): Blog (list, edit/new with preview, publish, unpublish) and Legal texts. */
import { useSearchParams } from 'react-router';
import { BlogDesk } from '@/operator/pages/blog-desk';
import { LegalDesk } from '@/operator/pages/legal-desk';

export function ContentPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'legal' ? 'legal' : 'blog';
  return (
    <div>
      <h1>Content</h1>
      <div role="tablist" aria-label="Content" className="op-tabs">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'blog'}
          data-testid="tab-blog"
          onClick={() => setParams({ tab: 'blog' })}
        >
          Blog
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'legal'}
          data-testid="tab-legal"
          onClick={() => setParams({ tab: 'legal' })}
        >
          Legal
        </button>
      </div>
      {tab === 'blog' ? <BlogDesk /> : <LegalDesk />}
    </div>
  );
}
