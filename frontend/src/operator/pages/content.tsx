/**
 * Content desk (admin): Blog (list, edit/new with preview, publish now or at a time,
 * unpublish), Legal texts and Landing pages' copy.
 */
import { useSearchParams } from 'react-router';
import { BlogDesk } from '@/operator/pages/blog-desk';
import { LandingDesk } from '@/operator/pages/landing-desk';
import { LegalDesk } from '@/operator/pages/legal-desk';

const TABS = [
  { tab: 'blog', label: 'Blog', desk: BlogDesk },
  { tab: 'legal', label: 'Legal', desk: LegalDesk },
  { tab: 'landing', label: 'Landing', desk: LandingDesk },
] as const;

export function ContentPage() {
  const [params, setParams] = useSearchParams();
  const current = TABS.find((t) => t.tab === params.get('tab')) ?? TABS[0];
  const Desk = current.desk;
  return (
    <div>
      <h1>Content</h1>
      <div role="tablist" aria-label="Content" className="op-tabs">
        {TABS.map(({ tab, label }) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={tab === current.tab}
            data-testid={`tab-${tab}`}
            onClick={() => setParams({ tab })}
          >
            {label}
          </button>
        ))}
      </div>
      <Desk />
    </div>
  );
}
